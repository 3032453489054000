"""Sphinx configuration of skgate's documentation site (``make docs``).

Builds offline: no intersphinx inventories are fetched; references to
scikit-learn, skorch and PyTorch objects link to their pages by each
library's URL scheme (``external_url``). The result files of ``benchmarks/``
are pages of the site (MyST includes under ``docs/results/``), and a page
that names one by its path links to it (``link_included_files``).
"""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import skgate  # noqa: E402

project = "skgate"
author = "the skgate developers"
copyright = "2026, the skgate developers"
release = version = skgate.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax from the package, not from a CDN: the site renders offline.
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3

templates_path = ["_templates"]
exclude_patterns = ["_build", "generated/*.examples"]
root_doc = "index"

autosummary_generate = True
# Inherited members are listed by the class template (docs/_templates), which
# leaves out torch.nn.Module's; a default here would override it.
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Cross-references in docstrings: names numpydoc cannot resolve offline are
# left as text, not warned about.
numpydoc_xref_param_type = False

#: Where the libraries skgate builds on document their objects. Builds run
#: offline, so no intersphinx inventory is fetched: a reference to one of
#: their objects that nothing here resolves (``:class:`sklearn.pipeline.Pipeline```)
#: becomes a link to its page by the library's URL scheme (resolve_external).
EXTERNAL = {
    "sklearn": "https://scikit-learn.org/stable/modules/generated/{target}.html",
    "torch": "https://docs.pytorch.org/docs/stable/generated/{target}.html",
    # skorch documents each module on one page, objects as anchors.
    "skorch": "https://skorch.readthedocs.io/en/stable/{module}.html#{target}",
}
#: skorch's top-level names, by the module that defines them.
SKORCH_MODULES = {
    "NeuralNet": "net",
    "NeuralNetClassifier": "classifier",
    "NeuralNetBinaryClassifier": "classifier",
    "NeuralNetRegressor": "regressor",
}


def external_url(target):
    """The documentation URL of ``target`` (a dotted name in scikit-learn,
    PyTorch or skorch), or None for any other name."""
    package = target.split(".", 1)[0]
    if package not in EXTERNAL:
        return None
    if package != "skorch":
        return EXTERNAL[package].format(target=target)
    parts = target.split(".")
    if len(parts) == 2:  # skorch.NeuralNetClassifier
        module = SKORCH_MODULES.get(parts[1], "net")
        target = f"skorch.{module}.{parts[1]}"
    else:
        module = parts[1]
    return EXTERNAL["skorch"].format(module=module, target=target)


#: scikit-learn's user-guide labels its inherited docstrings cite (the
#: ``score`` methods the estimators' pages list), by their page's anchor.
SKLEARN_LABELS = {
    "accuracy_score": "model_evaluation.html#accuracy-score",
    "r2_score": "model_evaluation.html#r2-score",
}


def resolve_external(app, env, node, contnode):
    """Sphinx's ``missing-reference`` hook: external objects by URL, and
    scikit-learn's user-guide labels."""
    target = node.get("reftarget")
    if node.get("refdomain") == "std" and target in SKLEARN_LABELS:
        url = "https://scikit-learn.org/stable/modules/" + SKLEARN_LABELS[target]
    elif node.get("refdomain") == "py":
        url = external_url(target)
    else:
        return None
    if url is None:
        return None
    from docutils import nodes

    reference = nodes.reference("", "", internal=False, refuri=url)
    reference.append(contnode)
    return reference


#: A MyST include of a file outside docs/ (the pages under docs/results/).
_INCLUDE = re.compile(r"^```\{include\} (\S+)$", re.MULTILINE)


def included_files(srcdir=ROOT / "docs"):
    """The repository's files that a page renders by a MyST ``{include}``:
    {file's path from the repository's root: the page's docname}."""
    pages = {}
    for source in sorted(srcdir.rglob("*.md")):
        if "_build" in source.parts:
            continue
        for target in _INCLUDE.findall(source.read_text()):
            path = (source.parent / target).resolve().relative_to(ROOT).as_posix()
            pages[path] = source.relative_to(srcdir).with_suffix("").as_posix()
    return pages


INCLUDED = included_files()


def link_included_files(app, doctree, docname):
    """Sphinx's ``doctree-resolved`` hook: an inline literal that names a
    rendered file (``benchmarks/results/KEEL.md``) links to its page."""
    from docutils import nodes
    from sphinx.util import logging

    for literal in list(doctree.findall(nodes.literal)):
        page = INCLUDED.get(literal.astext())
        linked = isinstance(literal.parent, nodes.reference)
        if page is None or page == docname or linked:
            continue
        if page not in app.env.all_docs:
            logging.getLogger(__name__).warning(
                f"{literal.astext()} links to {page}, which is not built",
                location=literal,
            )
            continue
        uri = app.builder.get_relative_uri(docname, page)
        reference = nodes.reference("", "", internal=True, refuri=uri)
        literal.replace_self(reference)
        reference.append(literal)


def setup(app):
    app.connect("missing-reference", resolve_external)
    app.connect("doctree-resolved", link_included_files)


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # Every example runs (the plot_ ones draw; the others print).
    "filename_pattern": r"\.py$",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    # Which examples use each public name: the API pages list them.
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("skgate",),
    # The timing tables' pages load DataTables from a CDN: not written.
    "write_computation_times": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"skgate {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
