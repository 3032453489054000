"""A package's public names imported on first use (PEP 562): its
``__getattr__`` and ``__dir__``, made from its table of where each name
lives, so that importing the package imports none of the heavy modules
(torch, scikit-learn, skorch) behind its names until one is read."""

import importlib
import sys


def lazy_names(package, homes, public, modules=()):
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``):
    ``homes`` maps each public name to the submodule that defines it;
    ``public`` is what ``dir()`` lists; ``modules`` are submodules found as
    attributes too (``skgate.compare.design``). A name read once is kept in
    the package's namespace, found directly from then on."""

    def __getattr__(name):
        if name in modules:
            return importlib.import_module(f".{name}", package)
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{home}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(public)

    return __getattr__, __dir__
