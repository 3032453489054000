"""The documentation site's sources: every public name in the API reference,
every gallery example titled and drawing a figure. (`make docs` builds the
site with warnings as errors; `make docs-check` opens it in Chromium.)"""

import ast
import re
from pathlib import Path

import skgate
import skgate.geometry
import skgate.nn
import skgate.parallel
import skgate.study

ROOT = Path(__file__).resolve().parents[1]


def _api_names():
    """Qualified names the API page documents (autosummary entries)."""
    names, module = set(), None
    for line in (ROOT / "docs/api.rst").read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif re.fullmatch(r"   [A-Za-z_]\w*", line):
            names.add(f"{module}.{line.strip()}")
    return names


def test_the_api_reference_lists_every_public_name():
    public = {f"skgate.{name}" for name in skgate.__all__}
    public |= {f"skgate.study.{name}" for name in skgate.study.__all__}
    # The modules' functions and classes (their constants are documented in
    # the docstrings that use them).
    for module in (skgate.geometry, skgate.nn, skgate.parallel):
        public |= {
            f"{module.__name__}.{name}"
            for name in module.__all__
            if callable(getattr(module, name)) and not name.isupper()
        }
    public.discard("skgate.geometry.documents_curvature_keywords")  # a decorator
    assert _api_names() == public


def test_the_gallery_has_titled_examples_that_draw():
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    assert len(examples) >= 6
    for path in examples:
        docstring = ast.get_docstring(ast.parse(path.read_text()), clean=False)
        title, underline = docstring.strip("\n").splitlines()[:2]
        assert underline == "=" * len(title), path.name
        assert "plt.show()" in path.read_text(), path.name
    # Every example, plot_ or not, opens with a title (sphinx-gallery needs one).
    for path in (ROOT / "examples").glob("*.py"):
        lines = ast.get_docstring(ast.parse(path.read_text()), clean=False)
        assert lines.strip("\n").splitlines()[1].startswith("==="), path.name


def test_external_references_link_by_each_librarys_url_scheme():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs/conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    url = conf.external_url
    assert url("sklearn.model_selection.GridSearchCV") == (
        "https://scikit-learn.org/stable/modules/generated/"
        "sklearn.model_selection.GridSearchCV.html"
    )
    assert url("torch.nn.Module") == (
        "https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html"
    )
    assert url("skorch.NeuralNetRegressor") == (
        "https://skorch.readthedocs.io/en/stable/regressor.html"
        "#skorch.regressor.NeuralNetRegressor"
    )
    assert url("skorch.callbacks.EarlyStopping") == (
        "https://skorch.readthedocs.io/en/stable/callbacks.html"
        "#skorch.callbacks.EarlyStopping"
    )
    assert url("numpy.ndarray") is None and url("skgate.nn") is None


def test_the_estimators_document_every_parameter():
    """Each estimator's Parameters section names every parameter it takes
    (the regressor's list is generated from its signature)."""
    from skgate import GatedAttentionClassifier, GatedAttentionRegressor

    for estimator in (GatedAttentionClassifier, GatedAttentionRegressor):
        doc = estimator.__doc__
        section = doc[doc.index("Parameters\n") : doc.index("Attributes\n")]
        documented = {
            name.strip()
            for line in section.splitlines()
            if re.match(r"    [a-z]", line)  # a parameter line, not its text
            for name in line.split(" :")[0].split(",")
        }
        missing = set(estimator().get_params()) - documented
        assert missing == set(), estimator.__name__
