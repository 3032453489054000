"""Check that the built API pages list every public method of each class,
inherited ones included, and that no page loads a script, stylesheet or
image from another site, so that the site renders offline (``make docs``
runs it after the build).

A class page ``generated/<name>.html`` must hold an anchor ``<name>.<method>``
for every public method the class has, wherever in its bases the method is
defined, except those of torch's ``nn.Module``, of built-in types and
scikit-learn's generated metadata-request methods (the class template in
``docs/_templates`` leaves those out). Prints what it checked; exits 1
naming the missing methods.
"""

import importlib
import inspect
import re
import sys
from pathlib import Path

import torch

#: Bases whose methods the pages leave out.
LEFT_OUT = (torch.nn.Module, dict, tuple, BaseException, object)
EXCLUDED = {"get_metadata_routing"}


def _documented_class(name):
    module, _, attribute = name.rpartition(".")
    try:
        owner = importlib.import_module(module)
    except ImportError:
        return None
    obj = getattr(owner, attribute, None)
    return obj if inspect.isclass(obj) else None


def expected_methods(cls):
    """The public methods of ``cls`` and its bases, but those :data:`LEFT_OUT`."""
    left_out = {n for base in LEFT_OUT for k in base.__mro__ for n in vars(k)}
    names = set()
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            public = not name.startswith("_") and not name.endswith("_request")
            method = callable(value) or isinstance(value, classmethod | staticmethod)
            if public and method and name not in left_out | EXCLUDED:
                names.add(name)
    return names


#: An asset loaded from another site: a script's or image's src, or a
#: stylesheet's or preloaded file's href.
_EXTERNAL = re.compile(
    r"""<(?:script|img|iframe)\b[^>]*\bsrc=["']https?://[^"']+|"""
    r"""<link\b[^>]*\bhref=["']https?://[^"']+"""
)


def external_assets(site):
    """``(page, tag)`` of every asset a built page loads from another site."""
    found = []
    for page in sorted(Path(site).rglob("*.html")):
        for match in _EXTERNAL.finditer(page.read_text(errors="replace")):
            found.append((page.relative_to(site), match.group(0)))
    return found


def main(site):
    external = external_assets(site)
    print(f"Offline: {len(external)} asset(s) loaded from other sites.")
    if external:
        for page, tag in external[:20]:
            print(f"  {page}: {tag}")
        return 1
    missing, checked = [], 0
    for page in sorted((Path(site) / "generated").glob("*.html")):
        cls = _documented_class(page.stem)
        if cls is None:
            continue
        html = page.read_text()
        for method in sorted(expected_methods(cls)):
            checked += 1
            if f'id="{page.stem}.{method}"' not in html:
                missing.append(f"{page.stem}.{method}")
    print(f"API pages: {checked} methods checked, {len(missing)} missing.")
    if missing:
        print("missing: " + ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html"))
