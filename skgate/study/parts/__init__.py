"""The study's parts, registered: each is a module of this package with a
:class:`~skgate.study.part.Part` named ``PART``, and one line below.

The order is the order in which they run, and in which REPORT.md shows
their bottom line, findings and sections: the second confirmatory part
first (the setting the paper is about), then the first, the exploratory
study, the theorem's setting and the toy datasets.
"""

from importlib import import_module

__all__ = ["PARTS", "by_name"]

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


def by_name(name, parts=None):
    """The registered part called ``name``."""
    parts = PARTS if parts is None else parts
    for part in parts:
        if part.name == name:
            return part
    raise ValueError(
        f"no part is called {name!r}; the parts: {[p.name for p in parts]}."
    )
