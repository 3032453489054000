"""Sphinx configuration of skgate's documentation site (``make docs``).

Builds offline: no intersphinx inventories are fetched; links to
scikit-learn, skorch and PyTorch pages are written with the ``:sklearn:``,
``:skorch:`` and ``:torch:`` roles (sphinx.ext.extlinks), plain URLs.
"""

import os
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
    "sphinx.ext.extlinks",
    "sphinx.ext.mathjax",
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
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Cross-references in docstrings: names numpydoc cannot resolve offline are
# left as text, not warned about.
numpydoc_xref_param_type = False

extlinks = {
    "sklearn": ("https://scikit-learn.org/stable/modules/generated/%s.html", "%s"),
    "skorch": ("https://skorch.readthedocs.io/en/stable/%s.html", "skorch %s"),
    "torch": ("https://pytorch.org/docs/stable/generated/%s.html", "%s"),
}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    # Which examples use each public name: the API pages list them.
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("skgate",),
}

html_theme = "pydata_sphinx_theme"
html_title = f"skgate {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
