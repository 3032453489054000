"""Docstring fragments shared by functions: each parameter is documented once."""

import textwrap


def fill_docstring(function, **fragments):
    """Replace each docstring line ``{name}`` by ``fragments[name]``, indented alike.

    Returns ``function`` (its ``__doc__`` filled in), so it works as a decorator's
    last step. Lines holding anything else, braces included, are left as they are.
    """
    lines = []
    for line in (function.__doc__ or "").split("\n"):
        key = line.strip()[1:-1] if line.strip().startswith("{") else None
        if key in fragments:
            indent = line[: len(line) - len(line.lstrip())]
            line = textwrap.indent(fragments[key].rstrip("\n"), indent)
        lines.append(line)
    function.__doc__ = "\n".join(lines)
    return function
