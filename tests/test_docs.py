"""The documentation site's sources: every public name in the API reference,
every gallery example titled and drawing a figure. (`make docs` builds the
site with warnings as errors; `make docs-check` opens it in Chromium.)"""

import ast
import inspect
import re
from pathlib import Path

import skgate
import skgate.geometry
import skgate.nn
import skgate.parallel

ROOT = Path(__file__).resolve().parents[1]


#: Every module whose ``__all__`` is public API.
PUBLIC_MODULES = (
    "skgate",
    "skgate.benchmark",
    "skgate.command",
    "skgate.compare.table",
    "skgate.outputs",
    "skgate.compare",
    "skgate.datasets",
    "skgate.estimators",
    "skgate.geometry",
    "skgate.inspection",
    "skgate.model_selection",
    "skgate.nn",
    "skgate.paired",
    "skgate.parallel",
    "skgate.search",
)


def _api_entries():
    """(name, object, page) of every autosummary entry of the API page."""
    import importlib

    entries, module = [], None
    for line in (ROOT / "docs/api.rst").read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif re.fullmatch(r"   [A-Za-z_][\w.]*", line):
            *path, name = f"{module}.{line.strip()}".split(".")
            owner = importlib.import_module(".".join(path))
            entries.append((name, getattr(owner, name), f"{module}.{line.strip()}"))
    return entries


def test_the_api_reference_lists_every_public_name():
    """Every name of every public module's __all__ has a page: the same
    object under the same name (a function re-exported by skgate needs
    one page, wherever it is listed)."""
    import importlib

    documented = {(name, id(obj)) for name, obj, _ in _api_entries()}
    missing = [
        f"{module}.{name}"
        for module in PUBLIC_MODULES
        for name in importlib.import_module(module).__all__
        if (name, id(getattr(importlib.import_module(module), name))) not in documented
    ]
    assert missing == []
    pages = [page for _, _, page in _api_entries()]
    assert len(pages) == len(set(pages))  # no page twice


def test_the_head_options_agree_everywhere():
    """The estimators' head options: the constant, the docstrings, the user
    guide's parameter table and the command line."""
    from skgate.nn import HEADS

    assert HEADS == ("mlp", "mlp-relu", "linear", "norm-linear")
    options = "{" + ", ".join(f'"{h}"' for h in HEADS) + "}"
    from skgate.nn import GatedAttentionNet

    assert f"head : {options}" in GatedAttentionNet.__doc__
    # The estimators take "auto" besides (the design's choice by the form of X).
    auto = "{" + ", ".join(f'"{h}"' for h in ("auto", *HEADS)) + "}"
    assert f"head : {auto}" in skgate.GatedAttentionClassifier.__doc__
    table = (ROOT / "docs/user_guide/estimators.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| `head`"))
    assert row.split("|")[3].strip() == ", ".join(f'`"{h}"`' for h in ("auto", *HEADS))
    from skgate.command import parser as command_parser

    parser = command_parser()
    compare = next(
        action.choices["compare"]
        for action in parser._actions
        if getattr(action, "choices", None) and "compare" in action.choices
    )
    head = next(a for a in compare._actions if "--head" in a.option_strings)
    assert tuple(head.choices) == HEADS
    guide = (ROOT / "docs/user_guide/your_data.md").read_text()
    assert "`--head " + "|".join(HEADS) + "`" in guide


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


def _docs_conf():
    """docs/conf.py as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs/conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


def test_external_references_link_by_each_librarys_url_scheme():
    url = _docs_conf().external_url
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


def test_every_result_file_has_a_page_and_is_linked_where_named():
    """Each Markdown file of benchmarks/results/ is rendered by a page of the
    site (a MyST include under docs/), and the pages name one by its path in
    backticks, which docs/conf.py turns into a link to that page (a path in
    plain text, or one no page renders, would stay text a reader cannot
    follow)."""
    included = _docs_conf().INCLUDED
    results = ROOT / "benchmarks/results"
    files = {p.relative_to(ROOT).as_posix() for p in results.glob("*.md")}
    assert len(files) >= 17 and files <= set(included), files - set(included)
    assert included["benchmarks/results/KEEL.md"] == "results/keel"
    assert included["benchmarks/results/REPORT.md"] == "user_guide/report"
    sources = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.rst")]
    for source in sources:
        if "_build" in source.parts:
            continue
        text = source.read_text()
        pattern = r"(.)(benchmarks/results/[\w/.-]+?\.md)(.)"
        for match in re.finditer(pattern, text, flags=re.DOTALL):
            before, path, after = match.groups()
            if before == "/":  # an include's relative path
                continue
            where = f"{source.relative_to(ROOT)}: {path}"
            assert (before, after) == ("`", "`"), where
            assert path in included, where


def test_minirockets_fit_times_are_said_to_be_warm():
    """MiniRocket's fit times in the results are of code numba compiled
    before (its first fit in an installation compiles it, about half a
    minute): every page of the site that shows them says so and links to
    the user guide's paragraph with the times cold and warm."""
    shown = []
    for path, page in _docs_conf().INCLUDED.items():
        text = (ROOT / path).read_text()
        if "MiniRocket" in text and re.search(r"fit (time|seconds)", text):
            shown.append(page)
    assert set(shown) >= {"results/sequences", "results/pilot-strong", "results/ragged"}
    for page in shown:
        text = " ".join((ROOT / "docs" / f"{page}.md").read_text().split())
        assert "MiniRocket's fit times on this page are warm" in text, page
        assert "(../user_guide/sequences.md#time-series-baselines)" in text, page
    guide = (ROOT / "docs/user_guide/sequences.md").read_text()
    baselines = " ".join(guide.split("## Time-series baselines")[1].split())
    assert "took 29 s of CPU time with nothing compiled" in baselines


def test_the_installation_page_covers_wheels_and_every_extra():
    """docs/installation.md installs from a wheel and an sdist (`make
    dist`); its table names each extra a user installs with what it adds,
    as pyproject.toml declares them; and the versions it says the
    `sequences` extra resolves are those constraints.txt pins beside aeon."""
    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    page = (ROOT / "docs/installation.md").read_text()
    assert "make dist" in page and "python -m build" in page
    assert "pip install dist/skgate-*.whl" in page
    assert '"$(ls dist/skgate-*.tar.gz)[plot]"' in page

    def names(requirements):
        return [re.match(r"[\w.-]+(\[[\w,]+\])?", r).group(0) for r in requirements]

    rows = dict(re.findall(r"^\| (`\w+`|\(none\)) \| ([^|]+) \|", page, re.MULTILINE))
    extras = project["optional-dependencies"]
    user_extras = {f"`{name}`": extras[name] for name in extras} | {
        "(none)": project["dependencies"]
    }
    del user_extras["`dev`"], user_extras["`docs`"]  # a contributor's
    assert set(rows) == set(user_extras)
    for extra, requirements in user_extras.items():
        assert sorted(names(requirements)) == sorted(rows[extra].strip().split(", "))
    pins = dict(
        pin.split("==")
        for pin in (ROOT / "constraints.txt").read_text().split()
        if "==" in pin
    )
    said = " ".join(page.split())
    assert f"aeon {pins['aeon']} (the newest release" in said
    assert f"numba {pins['numba'].rsplit('.', 1)[0]}" in said
    assert f"pip resolves numpy {pins['numpy']} and pandas {pins['pandas']}" in said


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


def test_the_guides_parameter_table_has_every_parameter_and_default():
    """docs/user_guide/estimators.md's table: one row per parameter of
    GatedAttentionClassifier, in the order of its signature, each with its
    default (the table once gave n_heads 1, residual False and norm None
    after they became "auto", and lacked seven parameters)."""
    from skgate import GatedAttentionClassifier

    page = (ROOT / "docs" / "user_guide" / "estimators.md").read_text()
    table = page.split("## Parameters of `GatedAttentionClassifier`", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", table, re.MULTILINE)
    signature = inspect.signature(GatedAttentionClassifier).parameters
    assert [name for name, _ in rows] == list(signature)
    for name, shown in rows:
        value = signature[name].default
        if isinstance(value, float) and not isinstance(value, bool):
            assert float(shown) == value, name
        else:
            assert shown == (f'"{value}"' if isinstance(value, str) else repr(value)), (
                name
            )


def test_the_citation_file_names_the_paper_and_this_version():
    import pytest

    yaml = pytest.importorskip("yaml")

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert str(citation["version"]) == skgate.__version__
    (paper,) = citation["references"]
    title = "Gating Enables Curvature: A Geometric Expressivity Gap in Attention"
    assert (paper["title"], paper["year"]) == (title, 2026)
    assert [a["family-names"] for a in paper["authors"]] == ["Bathula", "Joshi"]
    text = (ROOT / "README.md").read_text()
    assert "\n## Quickstart\n" in text and "\n## Citing\n" in text
    readme = " ".join(text.split())
    assert f'Bathula & Joshi (2026), "{title}"' in readme
    assert "python -m skgate compare data.csv --target COLUMN" in readme


def test_the_api_page_check_finds_a_missing_inherited_method(tmp_path, capsys):
    """docs/check_api_pages.py (run by make docs) fails when a class page
    lacks an inherited method, and passes when it has them all."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "check_api_pages", ROOT / "docs/check_api_pages.py"
    )
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    methods = check.expected_methods(skgate.GatedAttentionClassifier)
    assert {"fit", "score", "curvature", "representation", "get_params"} <= methods
    assert "train" not in check.expected_methods(skgate.nn.GatedAttentionBlock)
    (tmp_path / "generated").mkdir()
    page = tmp_path / "generated/skgate.GatedAttentionClassifier.html"
    anchors = [f'id="skgate.GatedAttentionClassifier.{m}"' for m in sorted(methods)]
    page.write_text("\n".join(anchors))
    assert check.main(tmp_path) == 0
    page.write_text("\n".join(a for a in anchors if ".score" not in a))
    assert check.main(tmp_path) == 1
    assert "skgate.GatedAttentionClassifier.score" in capsys.readouterr().out


def _speed_section(title):
    """The lines of SPEED.md's section ``title`` (bench_speed.py's output)."""
    text = (ROOT / "benchmarks/results/SPEED.md").read_text()
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    return section.splitlines()


def test_the_findings_pages_compare_times_are_speed_mds():
    """The findings page's times of compare at its defaults are those
    SPEED.md's section measured (rounded to whole seconds), at the design
    it measured."""
    lines = _speed_section("compare_gates at its defaults")
    start = next(i for i, line in enumerate(lines) if line.startswith("| table"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in lines[start:end]]
    header, body = cells[0], cells[2:]  # the second line is the alignment row
    table = {row[0]: dict(zip(header, row, strict=True)) for row in body}
    one = {name: float(row["n_jobs=1 (s)"]) for name, row in table.items()}
    two = {name: float(row["n_jobs=2 (s)"]) for name, row in table.items()}
    big = next(name for name in one if name.startswith("1000 x 20"))
    small = [name for name in one if name != big]
    command = float(re.search(r"took ([\d.]+) s on the 1000 x 20 table",
                              "\n".join(lines)).group(1))  # fmt: skip
    findings = " ".join((ROOT / "docs/user_guide/findings.md").read_text().split())
    expected = (
        f"it took {one[big]:.0f} s for 1000 rows x 20 features and "
        f"{min(one[n] for n in small):.0f} to {max(one[n] for n in small):.0f} s "
        f"for iris, wine and diabetes with n_jobs=1 "
        f"({min(two.values()):.0f} to {max(two.values()):.0f} s with n_jobs=2); "
        f"the command, start-up included, {command:.0f} s on the 1000-row table"
    )
    assert expected in findings
    training = re.search(r"\| training \| [\d.]+ \| (\d+)% \|", "\n".join(lines))
    assert f"training is {training.group(1)} % of it" in findings
    design = re.search(
        r"on (\d+) x (\d+) folds \((\d+) fits\), .*?\((\d+) optimizer steps",
        "\n".join(lines),
    )
    folds, repeats, fits, steps = design.groups()
    assert f"the same {folds} x {repeats} cross-validation splits ({fits} fits)" in (
        findings
    )
    assert f"{steps} optimizer steps per fit" in findings


def test_the_findings_pages_baselines_sentence_is_compare_mds():
    """What the findings page says of the gates against the baselines is
    counted from bench_compare.py's table, and its time read from its page."""
    import pandas as pd

    results = ROOT / "benchmarks/results"
    table = pd.read_csv(results / "compare.csv")
    baselines = {"LogReg", "Ridge", "HGB"}
    beaten = sum(
        not t.startswith("No gate beats") for t in table["against the best baseline"]
    )
    first = [re.match(r"(?:use|any of) ([^,( ]+)", r).group(1)
             for r in table["recommendation"]]  # fmt: skip
    named = sum(arm in baselines for arm in first)
    ungated = sum(arm == "ungated" for arm in first)
    seconds = re.search(r"2 baselines, (\d+) fits, 2 jobs\): \*\*([\d.]+) s\*\*",
                        (results / "COMPARE.md").read_text())  # fmt: skip
    assert re.search(r"on AMD EPYC \(torch's CPU capability \w+\), 2 cores\.",
                     (results / "COMPARE.md").read_text())  # fmt: skip
    findings = " ".join((ROOT / "docs/user_guide/findings.md").read_text().split())
    n = len(table)
    gate = (
        f"no gate beats the best baseline on any of the {n}"
        if beaten == 0
        else f"a gate beats the best baseline on {beaten} of the {n}"
    )
    expected = (
        f"{gate} datasets of "
        f"`benchmarks/results/COMPARE.md`; the recommendation names a baseline on "
        f"{named} of them and ungated attention on {ungated}. The default design on "
        f"1000 rows x 20 features with its 2 baselines ({seconds.group(1)} fits) "
        f"took {seconds.group(2)} s there with n_jobs=2, on 2 cores of an AMD EPYC "
        f"(x86_64)."
    )
    assert expected in findings


def test_the_guides_thread_times_are_speed_mds():
    """The user guide's times of a small fit on two threads and on one are
    those SPEED.md's "The engine's constants" measured."""
    lines = "\n".join(_speed_section("The engine's constants"))
    one = float(re.search(r"\| threads \| one thread[^|]*\| ([\d.]+) \|", lines)[1])
    two = float(
        re.search(r"\| threads \| the caller's threads \| ([\d.]+) \|", lines)[1]
    )
    guide = " ".join((ROOT / "docs/user_guide/estimators.md").read_text().split())
    assert f"took {two:.2f} s on two threads and {one:.2f} s on one" in guide


#: A time a page quotes: a number and a unit of time.
_TIME = re.compile(r"(?<![\w.])\d[\d,.]*\s?(?:s|ms|min|h|seconds|minutes|hours)\b")


def test_every_time_the_docs_quote_says_which_machine():
    """A time is a measurement on one machine: each one a page of the docs
    quotes has the machine's CPU (x86_64, or its model) and its cores beside
    it, in its paragraph. Left out: code blocks, the blocks a run writes
    into a page (reproducing.md's findings, followed by the machine), the
    protocols (frozen: the report records their SHA-256) and a timeout (a
    setting, not a measurement)."""
    pages = [p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts]
    pages = [p for p in pages if not p.name.startswith("protocol")]
    for page in pages:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
        text = re.sub(r"<!-- (\w+):start -->.*?<!-- \1:end -->", "", text, flags=re.S)
        for paragraph in re.split(r"\n\s*\n", text):
            for match in _TIME.finditer(paragraph):
                if "timeout" in paragraph[max(0, match.start() - 40) : match.start()]:
                    continue
                near = paragraph[max(0, match.start() - 400) : match.end() + 400]
                where = f"{page.relative_to(ROOT)}: {match.group(0)}"
                assert re.search(r"x86_64|EPYC", near) and "core" in near, where


def test_the_findings_page_states_the_studys_seeds():
    """The seeds per sweep the findings page gives each confirmatory part
    are the study's (arms/alpha/depth, study.facts)."""
    from study.facts import COPIED_SEEDS, SEQUENCE_SEEDS

    findings = " ".join((ROOT / "docs/user_guide/findings.md").read_text().split())
    parts = {"protocol-2.md": SEQUENCE_SEEDS, "protocol.md": COPIED_SEEDS}
    for part, seeds in parts.items():
        per_sweep = "/".join(str(seeds[s]) for s in ("arms", "alpha", "depth"))
        assert f"](../{part}), {per_sweep} seeds per sweep" in findings, part
    assert "python -m study reproduce --toy --n-jobs 2" in findings


def test_the_design_notes_state_the_estimators_signature():
    """docs/design.md's signature of GatedAttentionClassifier is the
    estimator's own: the same parameters, in order, with the same defaults."""
    text = (ROOT / "docs/design.md").read_text()
    stated = re.search(r"`GatedAttentionClassifier(\(.*?\))`", text, re.DOTALL)
    tree = ast.parse(f"def f{' '.join(stated.group(1).split())}: pass")
    arguments = tree.body[0].args
    names = [a.arg for a in arguments.args + arguments.kwonlyargs]
    defaults = [
        ast.literal_eval(d)
        for d in [*arguments.defaults, *arguments.kw_defaults]  # all given
    ]
    signature = inspect.signature(skgate.GatedAttentionClassifier).parameters
    assert names == list(signature)
    assert defaults == [p.default for p in signature.values()]
    assert [a.arg for a in arguments.args] == ["gate"]  # the rest keyword-only


def test_the_layout_page_names_every_module_of_the_library():
    """docs/user_guide/layout.md names every module file of skgate (a
    module split or added is described there too)."""
    layout = (ROOT / "docs/user_guide/layout.md").read_text()
    named = {name.split("/")[-1] for name in re.findall(r"`([\w/]+\.py)`", layout)}
    missing = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "skgate").rglob("*.py"))
        if path.name != "__init__.py" and path.name not in named
    ]
    assert missing == []
