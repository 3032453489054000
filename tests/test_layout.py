"""The package's shape: one idea per module, short functions, facts stated once.

These are properties of the source tree, checked so that they stay true.
"""

import ast
import copy
import dataclasses
import importlib
import inspect
import pickle
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

import skgate
from skgate import (
    GatedAttentionClassifier,
    GatedAttentionRegressor,
    geometry,
    representation_curvature,
)
from skgate._options import DESIGN_NET_PARAMETERS, DESIGNS, SERIES_BLOCK, SERIES_STEM
from skgate.nn import GatedAttentionNet

from study import facts, realdata

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(skgate.__file__).parent
#: The reproduction study: in the repository, outside the installed package.
STUDY_DIR = ROOT / "benchmarks" / "study"
#: Every library module, subpackages (nn/, compare/) included.
LIBRARY = [path for path in PACKAGE.rglob("*.py") if path.name != "__main__.py"]
MAX_FUNCTION_LINES = 80


def _functions(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_is_longer_than_a_screen():
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
        f"({node.end_lineno - node.lineno + 1} lines)"
        for path in PACKAGE.rglob("*.py")
        for node in _functions(path)
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def _imports(nodes):
    imports = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            imports.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
    return imports


@pytest.mark.parametrize(
    "path", LIBRARY, ids=lambda path: str(path.relative_to(PACKAGE))
)
def test_the_library_never_imports_the_study(path):
    """No library module imports the study; none imports matplotlib, but the
    displays' module, and that only inside the functions that draw (so that
    ``import skgate`` never loads it)."""
    tree = ast.parse(path.read_text())
    imports = _imports(ast.walk(tree))
    assert {name for name in imports if "study" in name} == set()
    drawing = {name for name in imports if "matplotlib" in name}
    if path.name == "inspection.py":
        assert drawing and not {
            name for name in _imports(tree.body) if "matplotlib" in name
        }
    else:
        assert drawing == set()


def test_nothing_refers_to_files_outside_the_repository():
    """Every Markdown file a source or document names is one of the repository's
    (the design notes are docs/design.md), and no relative path climbs out of it."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    text_files = [
        name for name in tracked if name.endswith((".py", ".md", ".toml", ".txt"))
    ]
    # Generated reports (REPORT.md, TOY.md, ...) are named before a run writes them.
    known = {Path(name).name for name in tracked} | {
        "REPORT.md",
        "TOY.md",
        "EXPLORATORY.md",
        "COMPARE.md",
        "BUILD_TIMES.md",
    }
    assert "docs/design.md" in tracked
    unknown, climbing = [], []
    for name in text_files:
        text = (ROOT / name).read_text()
        for document in re.findall(r"[\w./-]+\.md\b", text):
            if Path(document).name not in known:
                unknown.append(f"{name}: {document}")
        for path in re.findall(r"(?:\.\./)+[\w.-]+", text):
            target = (ROOT / name).parent / path
            if ROOT.resolve() not in target.resolve().parents:
                climbing.append(f"{name}: {path}")
    assert unknown == [] and climbing == []


def test_the_curvature_keywords_are_declared_once():
    """Every function that takes them shows geometry.curvature's, defaults and all."""
    home = geometry.CURVATURE_KEYWORDS
    assert list(home) == [
        "kind",
        "method",
        "metric",
        "condition_number",
        "covariance",
        "n_directions",
        "eps",
        "random_state",
        "directions",
    ]
    stated = inspect.signature(representation_curvature).parameters
    assert "__signature__" not in vars(representation_curvature)  # not rewritten
    assert [stated[name] for name in home] == list(home.values())
    # The fitted model's method is representation_curvature(self, X, **kwargs)
    # (the design's words): it states layer, takes the keywords as **kwargs
    # and documents them.
    method = inspect.signature(GatedAttentionClassifier.curvature).parameters
    assert list(method) == ["self", "X", "layer", "kwargs"]
    assert method["layer"].default == stated["layer"].default == "attention"
    for function in (representation_curvature, GatedAttentionClassifier.curvature):
        for name in home:  # the shared docstring fragment is filled in
            assert f"    {name} :" in function.__doc__


#: The network's parameters that the series design sets (the convolutional
#: stem's and the residual blocks' choices, skgate._options.SERIES_STEM and
#: SERIES_BLOCK), which the estimators do not take.
SERIES_ONLY = (*SERIES_STEM, *SERIES_BLOCK)


def test_the_network_defaults_are_the_estimators():
    """GatedAttentionNet is a public torch module with its own defaults; they
    must be the estimators' (declared in the estimators' signature). The
    gate's initialisation gain is no estimator parameter: the estimators'
    class attribute holds the network's default."""
    net = inspect.signature(GatedAttentionNet).parameters
    for Estimator in (GatedAttentionClassifier, GatedAttentionRegressor):
        params = Estimator().get_params()
        keywords = [p for p in net.values() if p.kind is p.KEYWORD_ONLY]
        assert keywords
        for parameter in keywords:
            if parameter.name == "gate_gain":
                assert parameter.default == Estimator.gate_gain
                continue
            if parameter.name == "n_channels":  # series: their layout's
                assert parameter.default is None
                continue
            if parameter.name in SERIES_ONLY:
                # Set for series by their design (skgate._options), not an
                # estimator parameter: the network's default is the stem's
                # (the series design's) and a table's block (no projection).
                series = {**SERIES_STEM, "projection": False}
                assert parameter.default == series[parameter.name]
                continue
            default = params[parameter.name]
            if default == "auto":  # a table's design is the network's default
                default = DESIGNS["table"][parameter.name]
            assert parameter.default == default, parameter.name


def test_parameters_after_gate_are_keyword_only():
    for Estimator in (GatedAttentionClassifier, GatedAttentionRegressor):
        parameters = list(inspect.signature(Estimator).parameters.values())
        assert parameters[0].name == "gate"
        assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert all(p.kind is p.KEYWORD_ONLY for p in parameters[1:])
        with pytest.raises(TypeError, match="positional"):
            Estimator("none", 0.5)


def test_estimator_classes_state_their_parameters_as_scikit_learn_does():
    """Each public estimator writes its own __init__ (defaults in its source,
    no generated signature), stores every parameter under its name and
    passes the architecture to the network, and the CV estimators pass
    every parameter to their models, by name."""
    from skgate import GatedAttentionClassifierCV, GatedAttentionRegressorCV
    from skgate._design import net_parameters

    _NET_PARAMETERS = net_parameters(GatedAttentionClassifier)

    for Estimator in (
        GatedAttentionClassifier,
        GatedAttentionRegressor,
        GatedAttentionClassifierCV,
        GatedAttentionRegressorCV,
    ):
        init = vars(Estimator)["__init__"]
        assert "__signature__" not in vars(init)
        source = inspect.getsource(init)
        for name in inspect.signature(Estimator).parameters:
            assert f"self.{name} = {name}" in source, (Estimator, name)
        assert "__getattr__" not in vars(Estimator)
    net = inspect.signature(GatedAttentionNet).parameters
    keywords = [p.name for p in net.values() if p.kind is p.KEYWORD_ONLY]
    assert list(_NET_PARAMETERS) == [
        n for n in keywords if n not in ("gate_gain", "n_channels", *SERIES_ONLY)
    ]
    from skgate._design import build_network

    # The estimators build their network by skgate._design.build_network.
    delegate = inspect.getsource(GatedAttentionClassifier._build_module)
    assert "return build_network(self, n_features, n_outputs, generator)" in delegate
    build = inspect.getsource(build_network)
    # Every network parameter, read from the signatures (not restated).
    assert "for name in net_parameters(type(estimator))" in build
    assert set(DESIGN_NET_PARAMETERS) <= set(_NET_PARAMETERS)
    for Search, Estimator in (
        (GatedAttentionClassifierCV, GatedAttentionClassifier),
        (GatedAttentionRegressorCV, GatedAttentionRegressor),
    ):
        # Distinct values, so that a parameter passed under another name shows.
        search = Search(lr=0.123, tol=0.456, max_epochs=7, d_model=9, n_tokens=3)
        model = search._estimator(0.75).get_params()
        own = {k: v for k, v in search.get_params().items() if k in model}
        assert model == {**own, "alpha": 0.75}
        assert set(model) == set(Estimator().get_params())


STUDY = sorted(STUDY_DIR.rglob("*.py"))
#: The names every part module declares (study.part's interface).
PART_INTERFACE = {"PART", "PROTOCOL", "PLAN", "TABLES"}
#: Grids of different facts that happen to be equal: each protocol fixed its
#: own, which equals a grid another part uses.
COINCIDENCES = {
    frozenset({"GRIDS.coarse_alphas", "GRIDS.copied_alphas"}),  # quick; protocol 1's
    frozenset({"GRIDS.copied_depths", "GRIDS.sequence_depths"}),  # protocol 1's; 2's
}
#: The kinds of fact the study shares, by name: gate and arm labels and
#: colours, claim statements, seeds, conditions (task settings, condition
#: numbers), margins and smallest effects, alpha grids, learning rates.
FACT_NAMES = re.compile(
    r"LABELS|COLORS|CLAIMS|SEEDS?$|_SEED$|^(COPIED_|SEQUENCE_)?CONDITIONS?$|CANDIDATES|"
    r"CONDITION_NUMBERS?|MARGIN|SESOI|HEADROOM|ALPHAS|LEARNING_RATES|^LINEAR$"
)


def _literal(node):
    """Whether ``node`` is a value written out (not computed from others)."""
    if isinstance(node, ast.Call):  # tuple(range(500, 520)), not f(SEEDS)
        return (
            isinstance(node.func, ast.Name)
            and node.func.id in ("tuple", "range")
            and all(_literal(arg) for arg in node.args)
        )
    return all(
        isinstance(child, ast.Constant | ast.Tuple | ast.List | ast.Dict | ast.Load)
        or isinstance(child, ast.operator | ast.UnaryOp | ast.BinOp | ast.unaryop)
        for child in ast.walk(node)
    )


def _top_level_assignments(path):
    """(name, value node) of every module-level assignment in ``path``."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id, node.value


#: The run's seeds, which the command line shows without importing torch
#: (facts.py imports the estimators): stated in benchmarks/study/commands.py,
#: re-exported by facts.py.
COMMAND_LINE_SEEDS = {
    ("commands.py", "QUICK_SEEDS"),
    ("commands.py", "FULL_SEEDS"),
    ("commands.py", "DEMO_SEEDS"),
    ("commands.py", "DEMO_MAX_SEEDS"),  # held to facts.SEQUENCE_SEEDS by a test
    ("commands.py", "REPRODUCE_MAX_SEEDS"),  # held to pipeline.MAX_SEEDS by a test
}


def _nodes_outside_facts(found):
    """ "file:line" of every syntax node of the study outside facts.py for
    which ``found(node)`` is true."""
    return [
        f"{path.name}:{node.lineno}"
        for path in STUDY
        if path.name != "facts.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if found(node)
    ]


def test_every_study_fact_is_defined_once():
    """No public name is assigned in two of the study's modules; every gate
    label, claim statement, seed, condition, margin and grid written out is
    written in facts.py (the run's seeds in commands.py:
    COMMAND_LINE_SEEDS); no other module holds a table keyed by the gates
    whose values are words (a second set of labels)."""
    where = {}
    for path in STUDY:
        for name, _ in _top_level_assignments(path):
            if not name.startswith("_") and name not in PART_INTERFACE:
                where.setdefault(name, set()).add(path.name)
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert twice == {}
    outside = [
        f"{path.name}: {name}"
        for path in STUDY
        if path.name != "facts.py"
        for name, value in _top_level_assignments(path)
        if FACT_NAMES.search(name)
        and _literal(value)
        and (path.name, name) not in COMMAND_LINE_SEEDS
    ]
    assert outside == []
    gates = {"multiplicative", "silu", "none"}
    tables = _nodes_outside_facts(
        lambda node: (
            isinstance(node, ast.Dict)
            and gates <= {k.value for k in node.keys if isinstance(k, ast.Constant)}
        )
    )
    assert tables == []


def _paired_assignments(path):
    """(name, value node) of every module-level assignment in ``path``, an
    unpacking ``A, B = 1, 2`` paired element by element, and a record
    ``R = Record(a=1)`` field by field (as ``R.a``)."""
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for name, value in zip(target.elts, node.value.elts, strict=True):
                    yield name.id, value
            elif isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
                for keyword in node.value.keywords:
                    yield f"{target.id}.{keyword.arg}", keyword.value
            else:
                yield from ((n.id, node.value) for n in ast.walk(target)
                            if isinstance(n, ast.Name))  # fmt: skip


def _written_values(paths):
    """Every grid (a tuple or list of two or more values) written out at a
    module's top level in ``paths``, with the names it is assigned to. (A
    single number is left out: 0.05 or 20 stand for many different facts.)"""
    names = {}
    for path in paths:
        for name, value in _paired_assignments(path):
            grid = isinstance(value, ast.Tuple | ast.List) and len(value.elts) > 1
            if grid and _literal(value):
                names.setdefault(ast.dump(value), set()).add(name)
    return names


def test_no_study_value_is_written_twice():
    """A grid the study writes out is written once (facts.py, or the one
    module it belongs to) and read everywhere else: the same grid under two
    names is one fact written twice, unless it is a known coincidence of
    two facts."""
    twice = [
        sorted(names)
        for names in _written_values(STUDY).values()
        if len(names) > 1 and frozenset(names) not in COINCIDENCES
    ]
    assert twice == []


def test_the_value_check_finds_a_value_written_twice(tmp_path):
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text(
        "GATES = ('a', 'b')\nGRID = (0.5, 1.0)\nBUDGET = 300\n"
        "GRIDS = Grids(alphas=(0.0, 0.5), depths=(1, 2))\n"
    )
    two.write_text("ORDER = ('a', 'b')\nOTHER = (1.0, 0.5)\nCAP = 300\nD = (1, 2)\n")
    found = [sorted(n) for n in _written_values([one, two]).values() if len(n) > 1]
    assert found == [["GATES", "ORDER"], ["D", "GRIDS.depths"]]


def _written_grids(paths):
    """Every grid written out at a module's top level in ``paths`` (as
    :func:`_written_values` finds them), by its value: the names it is
    assigned to."""
    grids = {}
    for path in paths:
        for name, value in _paired_assignments(path):
            if isinstance(value, ast.Tuple | ast.List) and len(value.elts) > 1:
                try:
                    grid = tuple(ast.literal_eval(value))
                except ValueError:  # not a literal (names, calls)
                    continue
                grids.setdefault(grid, set()).add(f"{path.name}: {name}")
    return grids


def _library_grids():
    """Every grid (a tuple or list of two or more values) the library states
    as a documented constant, by its value: its names."""
    grids = {}
    for name in _documented_names():
        module, _, attribute = name.rpartition(".")
        value = getattr(importlib.import_module(module), attribute)
        if isinstance(value, tuple | list) and len(value) > 1:
            grids.setdefault(tuple(value), set()).add(name)
    return grids


def _library_grids_written_again(paths):
    """The grids of ``paths`` that equal a documented constant of the
    library (written again instead of read)."""
    library = _library_grids()
    return sorted(
        f"{sorted(names)} = {sorted(library[grid])}"
        for grid, names in _written_grids(paths).items()
        if grid in library
    )


def test_the_study_reads_the_librarys_grids():
    """A grid the library states (a documented constant: benchmark_gates'
    learning rates, the curved shapes, the tests) is read by the study, not
    written out again."""
    assert len(_library_grids()) > 10  # the check read the API reference
    assert _library_grids_written_again(STUDY) == []


def test_the_library_grid_check_finds_a_copy(tmp_path):
    copy = tmp_path / "copy.py"
    copy.write_text(
        "RATES = (5e-4, 2e-3, 8e-3)\nGRIDS = Grids(shapes=('circle', 'cross', "
        "'checkerboard', 'rings'))\nOTHER = (1.0, 2.0)\n"
    )
    assert _library_grids_written_again([copy]) == [
        "['copy.py: GRIDS.shapes'] = ['skgate.datasets.CURVED_SHAPES']",
        "['copy.py: RATES'] = ['skgate.benchmark.GATE_LEARNING_RATES']",
    ]


def _dataset_lists(paths, datasets):
    """Every list of the study's datasets written out in ``paths`` (a
    tuple, list or set of two or more names, all of ``datasets``, anywhere
    in a module; a dict's keys are a table, not a list), by the set it
    holds: where."""
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Tuple | ast.List | ast.Set):
                continue
            names = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(names) == len(node.elts) > 1 and set(names) <= datasets:
                where = f"{path.name}:{node.lineno}"
                found.setdefault(frozenset(names), []).append(where)
    return found


#: Every dataset the study names: its makers' tasks and the real sets.
STUDY_DATASETS = set(realdata.BOUNDARIES) | set(realdata.LOADED) | {"curved", "linear"}


def test_every_list_of_datasets_is_written_once():
    """A list of the study's datasets (the ones whose Bayes accuracy is
    known, the loaded ones, a run's real tasks) is written in one module
    and read everywhere else."""
    twice = [w for w in _dataset_lists(STUDY, STUDY_DATASETS).values() if len(w) > 1]
    assert twice == []


def test_the_dataset_list_check_finds_a_second_list(tmp_path):
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text('KNOWN = ("twonorm", "ringnorm")\nALL = ("moons", "twonorm")\n')
    two.write_text(
        'def f(name):\n    return name in ["ringnorm", "twonorm"]\n'
        'LABELS = {"twonorm": 1, "ringnorm": 2}\nWORDS = ("twonorm", "x")\n'
    )
    found = _dataset_lists([one, two], STUDY_DATASETS)
    assert [w for w in found.values() if len(w) > 1] == [["one.py:1", "two.py:2"]]


#: The study's frozen records of facts, each built once, in facts.py.
RECORDS = {
    "STUDY_GATES": facts.StudyGates,
    "EPOCHS": facts.Budgets,
    "SEQUENCE": facts.SequenceForm,
    "GRIDS": facts.Grids,
}


def test_the_facts_are_frozen_records_built_once():
    """Budgets, the sequence form, the grids and the gates' order, labels and
    colours are frozen records, with read-only mappings, built in facts.py
    only; every other module reads them."""
    for name, record in RECORDS.items():
        value = getattr(facts, name)
        assert type(value) is record and dataclasses.is_dataclass(value)
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)
    with pytest.raises(TypeError):
        facts.STUDY_GATES.arm_labels["none"] = "flat"
    # Every table of facts is read-only too, and still pickles and copies.
    tables = [facts.SEQUENCE_LEARNING_RATES, facts.COPIED_SEEDS, facts.LINEAR]
    tables += [facts.CLAIMS, facts.CLAIMS["C1"], *facts.SEQUENCE_CONDITIONS]
    for table in tables:
        with pytest.raises(TypeError, match="read-only"):
            table[next(iter(table))] = None
        with pytest.raises(TypeError, match="read-only"):
            table.update({})
    for value in (facts.STUDY_GATES, facts.GRIDS, facts.CLAIMS):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value
    changed = {**facts.LINEAR, "task": "curved"}  # a copy is an ordinary dict
    assert changed["task"] == "curved" and facts.LINEAR["task"] == "linear"
    names = {record.__name__ for record in RECORDS.values()}
    built = _nodes_outside_facts(
        lambda node: (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in names
        )
    )
    assert built == []


def test_the_fact_check_finds_a_second_definition(tmp_path):
    """The check above can fail: a module that writes a seed or a label
    table again is found."""
    copy = tmp_path / "copy.py"
    copy.write_text(
        'PILOT_SEEDS = tuple(range(500, 520))\nX = {"multiplicative": "g", '
        '"silu": "s", "none": "u"}\n'
    )
    (name, value), _ = list(_top_level_assignments(copy))
    assert FACT_NAMES.search(name) and _literal(value)


STUDY_FILES = sorted(STUDY_DIR.rglob("*.py"))
MAX_STUDY_MODULE_LINES = 900


def _too_long(paths, limit=MAX_STUDY_MODULE_LINES):
    """The modules of ``paths`` with more than ``limit`` lines, counted as
    ``wc -l`` counts them."""
    lines = {path: path.read_bytes().count(b"\n") for path in paths}
    return [f"{path.name} ({n} lines)" for path, n in lines.items() if n > limit]


def test_no_study_module_is_longer_than_900_lines():
    """A module a person can hold in their head: every module of the study
    (parts included) has at most 900 lines."""
    assert _too_long(STUDY_FILES) == []


def test_the_length_check_finds_a_long_module(tmp_path):
    long, short = tmp_path / "long.py", tmp_path / "short.py"
    long.write_text("x = 1\n" * (MAX_STUDY_MODULE_LINES + 1))
    short.write_text("x = 1\n" * MAX_STUDY_MODULE_LINES)
    assert _too_long([long, short]) == [f"long.py ({MAX_STUDY_MODULE_LINES + 1} lines)"]


def _in_study(dotted):
    return dotted == "study" or dotted.startswith("study.")


def _is_study_module(dotted):
    """Whether ``dotted`` names a module (or package) of the study."""
    path = STUDY_DIR.parent.joinpath(*dotted.split("."))
    return _in_study(dotted) and (
        path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
    )


def _imported_from(node, package):
    """The module an ``ImportFrom`` in a module of ``package`` imports from."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _private_uses(source, package):
    """Private names of the study's modules that ``source`` (a module of
    ``package``) imports (``from .x import _name``) or reads
    (``x._name``, where ``x`` is a study module it imported)."""
    tree = ast.parse(source)
    modules, found = set(), []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        origin = _imported_from(node, package)
        for alias in node.names:
            if _is_study_module(f"{origin}.{alias.name}"):
                modules.add(alias.asname or alias.name)
            if _in_study(origin) and _private(alias.name):
                found.append(f"from {origin} import {alias.name}")
    found += [
        f"{node.value.id}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
        and _private(node.attr)
    ]
    return found


def test_no_study_module_uses_another_ones_private_names():
    """A helper two study modules share is public (a name, a docstring, a
    home); a private one is used where it is defined only."""
    found = {
        str(path.relative_to(STUDY_DIR.parent)): _private_uses(
            path.read_text(), ".".join(path.relative_to(STUDY_DIR.parent).parent.parts)
        )
        for path in STUDY_FILES
    }
    assert {name: uses for name, uses in found.items() if uses} == {}


def test_the_private_name_check_finds_a_private_use():
    """The check above can fail: an import of a study module's private name,
    and an attribute read through a study module, are found (in a module
    of the study or of its parts); the library's private modules and the
    study's public names are not the check's business."""
    source = (
        "from .primary import _statistics\n"
        "from . import sweeps\n"
        "from . import claims as rules\n"
        "from .. import _command\n"
        "from .stats import HOLDS\n"
        "plane = sweeps._gaussian_plane(X) + rules._with_tokens(f) + rules.RULES\n"
    )
    assert _private_uses(source, "study") == [
        "from study.primary import _statistics",
        "sweeps._gaussian_plane",
        "rules._with_tokens",
    ]
    part = "from ..claims import _production_arms\nfrom .. import words\nwords._x\n"
    assert _private_uses(part, "study.parts") == [
        "from study.claims import _production_arms",
        "words._x",
    ]


def _reached_privates(path, package_depth):
    """Where the study module ``path`` (``package_depth`` dots from the
    library) reaches a private name: a private module or name imported, or
    an attribute ``x._name`` of anything but ``self`` and ``cls`` (pandas'
    positional fields ``_1`` aside), a library object's included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            library = node.level >= package_depth or module.startswith("skgate")
            private = [part for part in module.split(".") if part.startswith("_")]
            private += [a.name for a in node.names if a.name.startswith("_")]
            if private and (library or node.level >= 1):
                found.append(f"{path.name}:{node.lineno} {module} {private}")
        elif isinstance(node, ast.Attribute) and re.fullmatch(
            r"_(?!_)(?!\d+$)\w+", node.attr
        ):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    return found


def test_the_study_uses_the_librarys_public_api_only():
    """The study imports nothing private of the library (nor of its own
    other modules), and reaches no estimator's or object's private
    attribute: what it needs of the library is public and documented."""
    study = STUDY_DIR
    found = [
        use
        for path in sorted(study.rglob("*.py"))
        for use in _reached_privates(path, len(path.relative_to(study).parts) + 1)
    ]
    assert found == []


def test_the_public_api_check_finds_each_kind(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "from .._training import fit_together\nfrom ..paired import _helper\n"
        "from .sweeps import _rows\nx = clf._representation_map('attention')\n"
        "y = row._4\nz = self._cache\n"
    )
    assert len(_reached_privates(module, 2)) == 4


def _dotted(path):
    """The module name of a library file (skgate/compare/pairs.py:
    skgate.compare.pairs; a package's __init__.py: the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_library_module(dotted):
    """Whether ``dotted`` names a module (or package) of skgate."""
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return dotted.split(".")[0] == "skgate" and (
        path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
    )


class Use(NamedTuple):
    """A module of skgate that a module reaches, and the name it takes of
    it (None: the module itself), at a line."""

    line: int
    module: str
    name: str | None


def _library_uses(source, module, *, package=False):
    """Every module of skgate that ``source`` (the module ``module``, a
    package's ``__init__`` when ``package``) imports, and every name it
    takes of one: ``from M import name`` and ``m.name`` (``m.sub.name``
    too) of a module ``m`` it imported."""
    tree = ast.parse(source)
    home = module if package else module.rpartition(".")[0]
    modules, uses = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _imported_from(node, home)
            if not _is_library_module(origin):
                continue
            for alias in node.names:
                if _is_library_module(f"{origin}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{origin}.{alias.name}"
                    uses.append(Use(node.lineno, f"{origin}.{alias.name}", None))
                else:
                    uses.append(Use(node.lineno, origin, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_library_module(alias.name):
                    modules[alias.asname or alias.name] = alias.name
                    uses.append(Use(node.lineno, alias.name, None))
    for node in ast.walk(tree):
        chain, owner = [], node
        while isinstance(owner, ast.Attribute):
            chain.insert(0, owner.attr)
            owner = owner.value
        if not (chain and isinstance(owner, ast.Name) and owner.id in modules):
            continue
        parts = [modules[owner.id], *chain]
        reached = max(k for k in range(1, len(parts) + 1)
                      if _is_library_module(".".join(parts[:k])))  # fmt: skip
        if reached == len(parts):
            uses.append(Use(node.lineno, ".".join(parts), None))
        elif reached == len(parts) - 1:  # the name right after the module
            uses.append(Use(node.lineno, ".".join(parts[:-1]), parts[-1]))
    return uses


def _past_the_face(use, here):
    """Why ``use`` (by the module ``here``) reaches past another module's
    face, or None: a private name (``_x``) of another module, or a module
    inside a private package (``skgate._engine.loop``) from outside that
    package. A private module (``skgate._options``) and its public names
    are for the library's modules to share."""
    if use.name is not None and _private(use.name):
        return f"{use.module}.{use.name}"
    parts = use.module.split(".")
    for i, part in enumerate(parts[:-1]):
        package = ".".join(parts[: i + 1])
        inside = here == package or here.startswith(f"{package}.")
        if _private(part) and not inside:
            return use.module + ("" if use.name is None else f".{use.name}")
    return None


def _private_reaches(paths):
    """``{"file: what": [lines]}`` for every module of ``paths`` (library
    files) that reaches past another module's face (:func:`_past_the_face`)."""
    found = {}
    for path in paths:
        here = _dotted(path)
        uses = _library_uses(path.read_text(), here, package=path.name == "__init__.py")
        for use in uses:
            what = _past_the_face(use, here)
            if what is not None:
                key = f"{path.relative_to(PACKAGE.parent)}: {what}"
                found.setdefault(key, []).append(use.line)
    return found


def test_no_module_uses_another_ones_private_names():
    """A helper two modules share is a public name of a module (a private
    module such as skgate._options is for sharing), not another module's
    private name; a private package (skgate._engine, skgate._evaluation) is
    reached through its __init__ only."""
    assert _private_reaches(sorted(PACKAGE.rglob("*.py"))) == {}


def test_the_private_name_check_finds_each_kind():
    """The check above can fail: a private name imported from another
    module or read through one (``m._x``, ``m.sub._x``), and a module inside
    a private package reached from outside it, are found; a private
    module's public names, a private package's own face and a name read
    inside that package are not."""
    source = (
        "from ..geometry import _named, curvature\n"
        "from .. import geometry, nn, _options\n"
        "from .._engine.loop import pad_rows\n"
        "from .._engine import fit_together\n"
        "from ..nn import _jets\n"
        "from ._across import average_ranks\n"
        "a = geometry._check_options() + nn._jets._softmax_jet + _options.TASKS\n"
        "b = nn._jets.map_parts + geometry.KINDS\n"
    )
    uses = _library_uses(source, "skgate.compare.pairs")
    found = [_past_the_face(use, "skgate.compare.pairs") for use in uses]
    assert sorted(what for what in found if what) == [
        "skgate._engine.loop.pad_rows",
        "skgate.geometry._check_options",
        "skgate.geometry._named",
        "skgate.nn._jets._softmax_jet",
    ]
    inside = _library_uses("from .loop import pad_rows\n", "skgate._engine.fitting")
    assert [_past_the_face(use, "skgate._engine.fitting") for use in inside] == [None]


def _private_definitions(paths):
    """``{name: [file, ...]}`` of every private function and class defined
    at a module's top level in ``paths``."""
    where = {}
    for path in paths:
        for node in ast.parse(path.read_text()).body:
            defined = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            if isinstance(node, defined) and _private(node.name):
                where.setdefault(node.name, []).append(path.name)
    return where


def test_every_private_helper_is_defined_once():
    """A helper is written once: no private function or class is defined
    under one name in two modules of the library (a helper several modules
    need lives in one of them under a public name, as skgate._checks'
    argument checks do, once copies in paired, compare and nn)."""
    found = _private_definitions(sorted(PACKAGE.rglob("*.py")))
    assert len(found) > 200  # the check read the library
    assert {name: files for name, files in found.items() if len(files) > 1} == {}


def test_the_definition_check_finds_a_second_copy(tmp_path):
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("def _check_count(v):\n    pass\n\n\nclass _Split:\n    pass\n")
    two.write_text(
        "def _check_count(v):\n    pass\n\n\ndef check(v):\n    def _inner():\n"
        "        pass\n\n\ndef __getattr__(name):\n    pass\n"
    )
    found = _private_definitions([one, two])
    assert {n: f for n, f in found.items() if len(f) > 1} == {
        "_check_count": ["one.py", "two.py"]
    }


def test_compare_and_benchmark_share_one_evaluation():
    """skgate.compare and skgate.benchmark share the evaluation core
    (skgate._evaluation): neither imports the other, the core imports
    neither, and its __all__ is exactly what the two take of it."""
    core = "skgate._evaluation"
    users = {
        path: _library_uses(
            path.read_text(), _dotted(path), package=path.name == "__init__.py"
        )  # fmt: skip
        for folder in ("compare", "benchmark", "_evaluation")
        for path in sorted((PACKAGE / folder).glob("*.py"))
    }
    crossing = [
        f"{path.relative_to(PACKAGE)}: {use.module}"
        for path, uses in users.items()
        for use in uses
        for other in {"compare", "benchmark", "_evaluation"} - {path.parent.name}
        if use.module.startswith(f"skgate.{other}")
        and not (other == "_evaluation" and use.module == core)
    ]
    assert crossing == []
    taken = {
        use.name
        for path, uses in users.items()
        if path.parent.name != "_evaluation"
        for use in uses
        if use.module == core and use.name is not None
    }
    assert taken == set(importlib.import_module(core).__all__)
    assert len(taken) > 20  # the check read the two packages' imports


def test_the_study_lives_outside_the_package():
    """The installed package is the library: no study module ships in it,
    and the checks above read the study where it is (a check over an empty
    list of files would pass without reading any)."""
    assert not (PACKAGE / "study").exists()
    assert len(STUDY) >= 30 and STUDY == STUDY_FILES
    assert (STUDY_DIR / "__main__.py").is_file()


def _documented_names():
    """Every ``module.name`` the API reference gives a page."""
    names, module = set(), None
    for line in (ROOT / "docs/api.rst").read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif re.fullmatch(r"   [A-Za-z_][\w.]*", line):
            *path, name = f"{module}.{line.strip()}".split(".")
            names.add(f"{'.'.join(path)}.{name}")
    return names


def _library_names_used(path):
    """``skgate.module.name`` for each name the study module ``path`` imports
    from the library, and each attribute it reads of an imported library
    module (``command.parse``)."""
    tree = ast.parse(path.read_text())
    used, modules = set(), {}
    for node in ast.walk(tree):
        library = (getattr(node, "module", None) or "").startswith("skgate")
        if isinstance(node, ast.ImportFrom) and library:
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                path = PACKAGE.parent / dotted.replace(".", "/")
                if path.with_suffix(".py").is_file():
                    modules[alias.asname or alias.name] = dotted
                else:
                    used.add(dotted)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skgate.") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            used.add(f"{modules[node.value.id]}.{node.attr}")
    return used


def test_the_study_uses_only_names_the_api_reference_documents():
    """What the study takes of the library is the library's documented API:
    each name has a page in docs/api.rst (under its module, or re-exported
    by ``skgate``)."""
    documented = _documented_names()
    top = {name.rsplit(".", 1)[1] for name in documented if name.count(".") == 1}
    undocumented = sorted(
        f"{path.relative_to(STUDY_DIR.parent)}: {name}"
        for path in STUDY_FILES
        for name in _library_names_used(path)
        if name not in documented
        and not (name.startswith("skgate.") and name.rsplit(".", 1)[1] in top)
    )
    assert undocumented == []


ENGINE = sorted((PACKAGE / "_engine").glob("*.py"))
#: What the engine may import of the library: the network's equations over
#: stacked weights and the batching rule; never the estimators' side.
ENGINE_IMPORTS = {"skgate.nn._stacked", "skgate._batching"}
#: torch's in-place kernels the loop calls by their own (private) names.
TORCH_PRIVATE_CALLS = {"_fused_adamw_", "_foreach_add_"}


def _engine_reaches(path):
    """What the engine module ``path`` imports from the library outside the
    engine, the private attributes it reads that the engine does not define,
    and the names it gives an estimator."""
    tree = ast.parse(path.read_text())
    defined = {
        name
        for engine in ENGINE
        for node in ast.walk(ast.parse(engine.read_text()))
        for name in (
            [node.name]
            if isinstance(node, ast.FunctionDef | ast.ClassDef)
            else [
                t.attr
                for t in getattr(node, "targets", [])
                if isinstance(t, ast.Attribute)
            ]
        )
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 2:
            module = "skgate." + (node.module or "")
            if module not in ENGINE_IMPORTS:
                found.append(f"{path.name}: imports {module}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "skgate"
        ):
            found.append(f"{path.name}: imports {node.module}")
        elif isinstance(node, ast.Attribute) and re.fullmatch(r"_(?!_)\w+", node.attr):
            if node.attr not in defined | TORCH_PRIVATE_CALLS:
                found.append(f"{path.name}:{node.lineno} reads .{node.attr}")
        elif isinstance(node, ast.Name | ast.arg):
            name = node.id if isinstance(node, ast.Name) else node.arg
            if "estimator" in name:
                found.append(f"{path.name}:{node.lineno} names {name}")
    return found


def test_the_engine_trains_from_its_spec_alone():
    """The contract: the engine imports nothing of the estimators' side
    (estimators, search, _training, compare, ...), reads no private member
    it does not define (an estimator's ``_prepare_targets``, ``_adopt``,
    ...), and no variable of it holds an estimator: what it trains comes
    from the TrainingSpec."""
    assert len(ENGINE) >= 6
    assert [found for path in ENGINE for found in _engine_reaches(path)] == []


def test_the_engine_check_finds_each_kind(tmp_path):
    module = tmp_path / "loop.py"
    module.write_text(
        "from ..estimators import GatedAttentionClassifier\n"
        "from ..nn._stacked import validation_logits\n"
        "def f(estimator, spec):\n"
        "    return spec._prepare_targets(estimator)\n"
    )
    assert _engine_reaches(module) == [
        "loop.py: imports skgate.estimators",
        "loop.py:3 names estimator",
        "loop.py:4 reads ._prepare_targets",
        "loop.py:4 names estimator",
    ]


#: The history's one writer (skgate._engine.hooks): the only functions of
#: the library that write a skorch history's rows.
HISTORY_WRITER = {
    "begin_epoch",
    "begin_batch",
    "end_batch",
    "count_batches",
    "end_epoch",
}
_HISTORY_WRITES = {"record", "record_batch", "new_epoch", "new_batch", "append"}


def _history_writes(path):
    """``function: call`` for every call in ``path`` that writes a history
    row (``x.history.record(...)``, ``history.new_epoch()``, ...)."""
    found = []
    for function in _functions(path):
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _HISTORY_WRITES
                and "history" in ast.unparse(node.func.value)
            ):
                found.append(f"{function.name}: {ast.unparse(node.func)}")
    return found


def test_the_history_has_one_writer():
    """Every history row is written by the engine's writer functions, live
    (NetHooks) or once the loop has run (record_history) alike; skorch's own
    row starts are off (the nets' on_epoch_begin and on_batch_begin)."""
    writes = [w for path in LIBRARY for w in _history_writes(path)]
    assert writes and {w.split(":")[0] for w in writes} == HISTORY_WRITER
    from skgate._engine.hooks import _WeightedNet

    assert {"on_epoch_begin", "on_batch_begin"} <= set(vars(_WeightedNet))


def test_the_library_uses_the_engines_public_face_only():
    """Outside skgate._engine, the library imports the engine's package and
    the names its ``__all__`` gives, never one of its modules."""
    import skgate._engine as engine

    found = []
    for path in LIBRARY:
        if path.parent.name == "_engine":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""
            if "_engine." in module or module.startswith("_engine."):
                found.append(f"{path.name}: from {module}")
            elif module.endswith("_engine"):
                found += [
                    f"{path.name}: {alias.name}"
                    for alias in node.names
                    if alias.name not in engine.__all__
                ]
    assert found == []


def test_compare_names_each_public_name_once_with_its_home():
    """skgate.compare's __all__ (what static analysis reads) and its table of
    homes (what imports each name on first use) hold the same names."""
    import skgate.compare as compare

    assert sorted(compare.__all__) == sorted(compare._HOMES)
