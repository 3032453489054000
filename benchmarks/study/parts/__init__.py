"""The study's parts, registered: each is a module of this package with a
:class:`~study.part.Part` named ``PART``, and one line below.

The order is the order in which they run, and in which REPORT.md shows
their bottom line, findings and sections: the second confirmatory part
first (the setting the paper is about), then the first, the exploratory
study, the theorem's setting and the toy datasets.
"""

from importlib import import_module

__all__ = ["PARTS", "by_name", "check"]

#: Every part of the study, in order.
PARTS = tuple(
    import_module(f"{__name__}.{module}").PART
    for module in (
        "softmax_sequences",
        "copied_tokens",
        "exploratory",
        "theorem_setting",
        "toy_datasets",
    )
)


def check(parts=None):
    """Refuse a registry (default :data:`PARTS`) in which two parts share a
    name (a part registered twice too) or a file: each part's record and
    CSVs must be its own."""
    parts = PARTS if parts is None else parts
    names = [part.name for part in parts]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(
            f"the registered parts must have distinct names; {twice} more than "
            f"once in {names}."
        )
    owners = {}
    for part in parts:
        for file in part.files.values():
            if file in owners:
                raise ValueError(
                    f"the parts {owners[file]!r} and {part.name!r} both write "
                    f"{file}; each part's files must be its own."
                )
            owners[file] = part.name
    return parts


def by_name(name, parts=None):
    """The registered part called ``name``."""
    parts = PARTS if parts is None else parts
    for part in parts:
        if part.name == name:
            return part
    raise ValueError(
        f"no part is called {name!r}; the parts: {[p.name for p in parts]}."
    )
