"""Command line: ``python -m skgate reproduce`` and ``python -m skgate demo``.

``reproduce [--quick] [--out DIR] [--n-jobs N] [--seeds K]`` runs the study of
the paper's five claims and writes CSVs, PNG figures and REPORT.md into DIR
(``make demo`` runs its quick form). ``demo`` fits ungated, SiLU and gated
classifiers on three tasks and prints their held-out accuracy.
"""

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from . import experiments, report
from .datasets import make_curved_task, make_linear_task
from .estimators import GatedAttentionClassifier

GATES = {
    "ungated": {"gate": "none"},
    "silu": {"gate": "silu"},
    "gated (alpha=1)": {"gate": "multiplicative", "alpha": 1.0},
}


def _tasks(n_samples, random_state):
    return {
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=random_state
        ),
        "linear": make_linear_task(n_samples, random_state=random_state),
        "moons": make_moons(n_samples, noise=0.2, random_state=random_state),
    }


def demo(n_samples=1000, max_epochs=20, random_state=0, log=sys.stderr):
    """Held-out accuracy of each gate on each task, as a DataFrame (tasks x gates).

    Examples
    --------
    >>> table = demo(n_samples=100, max_epochs=1, log=None)
    >>> table.shape
    (3, 3)
    """
    rows = {}
    tasks = _tasks(n_samples, random_state)
    n_fits, done = len(tasks) * len(GATES), 0
    for task, (X, y) in tasks.items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=random_state
        )
        for name, params in GATES.items():
            start = time.perf_counter()
            clf = GatedAttentionClassifier(
                **params, max_epochs=max_epochs, random_state=random_state
            )
            accuracy = clf.fit(X_train, y_train).score(X_test, y_test)
            rows.setdefault(task, {})[name] = accuracy
            done += 1
            if log is not None:
                print(
                    f"[{done}/{n_fits}] {task:<12} {name:<16} accuracy "
                    f"{accuracy:.3f} ({time.perf_counter() - start:.1f} s)",
                    file=log,
                    flush=True,
                )
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "task"
    return table


def _log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _write_csv(frame, path):
    """The deterministic columns to ``path``; returns the timings apart."""
    frame.drop(columns=experiments.TIMINGS, errors="ignore").to_csv(
        path, index=False, float_format="%.10g"
    )


def _baseline_frame(gated, sklearn_rows):
    gated = gated.assign(
        dataset=[
            shape if task == "curved" else task
            for task, shape in zip(gated["task"], gated["shape"], strict=True)
        ],
        model=[f"GatedAttention ({gate})" for gate in gated["gate"]],
    )
    columns = ["dataset", "model", "seed", "accuracy", "fit_seconds"]
    return pd.concat([gated[columns], sklearn_rows[columns]], ignore_index=True)


def _boundary_panels(n_samples):
    panels = []
    tasks = {
        "make_moons": make_moons(n_samples, noise=0.2, random_state=0),
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=0
        ),
    }
    for title, (X, y) in tasks.items():
        clf = GatedAttentionClassifier(alpha=1.0, random_state=0).fit(X, y)
        panels.append((f"{title}, gated (alpha=1)", clf, X, y))
    return panels


def reproduce(out, *, quick=False, seeds=None, n_jobs=1):
    """Run the study and write CSVs, figures and REPORT.md into ``out``.

    Each sweep's CSV is written as soon as it finishes, so an interrupted run
    keeps what it finished. Returns the claims' verdicts.
    """
    from . import plotting

    plotting._pyplot()  # fail now, not after the sweeps, if matplotlib is missing
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = experiments.study_settings(quick=quick, seeds=seeds)
    results, timings = {}, []
    for name, sweep in settings.items():
        _log(f"{name}: {len(sweep)} fits")
        frame = experiments.run_sweep(sweep, n_jobs=n_jobs, description=name)
        _write_csv(frame, out / f"{name}.csv")
        timings.append(frame[["fit_seconds"]].assign(sweep=name))
        results[name] = frame

    names, seed_list, n_samples, gated_settings = experiments.baseline_settings(
        quick=quick, seeds=seeds
    )
    _log(
        f"baselines: {len(gated_settings)} gated attention fits and scikit-learn models"
    )
    gated = experiments.run_sweep(gated_settings, n_jobs=n_jobs, description="gated")
    sklearn_rows = experiments.run_baselines(names, seed_list, n_samples, n_jobs=n_jobs)
    baselines = _baseline_frame(gated, sklearn_rows)
    _write_csv(baselines, out / "baselines.csv")
    timings.append(baselines[["model", "fit_seconds"]].assign(sweep="baselines"))
    results["baselines"] = baselines

    _log("statistics")
    claims = {
        "C1": report.claim_gates(results["gates"]),
        "C2": report.claim_alpha(results["alpha"]),
        "C3": report.claim_linear(results["alpha"]),
        "C4": report.claim_anisotropy(results["gates"]),
        "C5": report.claim_depth(results["depth_init"], results["depth_trained"]),
    }
    for name, claim in claims.items():
        claim["tests"].to_csv(
            out / f"tests_{name}.csv", index=False, float_format="%.10g"
        )

    _log("figures")
    figures = {
        "gates": plotting.plot_gates(results["gates"]),
        "alpha": plotting.plot_alpha(results["alpha"]),
        "anisotropy": plotting.plot_anisotropy(
            results["gates"], experiments.CONDITION_NUMBERS
        ),
        "depth": plotting.plot_depth(results["depth_init"], results["depth_trained"]),
        "boundaries": plotting.plot_boundaries(_boundary_panels(n_samples)),
    }
    paths = {}
    for name, figure in figures.items():
        paths[name] = f"fig_{name}.png"
        figure.savefig(out / paths[name], dpi=110)
    pd.concat(timings, ignore_index=True).to_csv(out / "timings.csv", index=False)

    verdicts = report.write_report(
        out / "REPORT.md",
        results=results,
        claims=claims,
        settings={"quick": quick, "seeds": seed_list, "n_samples": n_samples},
        figures=paths,
    )
    _log(f"wrote {out / 'REPORT.md'}")
    return verdicts


QUICK_TOY = ["iris", "breast_cancer", "moons", "diabetes"]


def toy(out, *, quick=False, n_jobs=1):
    """The toy-dataset benchmark: toy.csv, toy_timings.csv and TOY.md in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = QUICK_TOY if quick else None
    _log(f"toy datasets: {', '.join(names or experiments.toy_datasets())}")
    start = time.perf_counter()
    frame = experiments.run_toy_benchmark(names=names, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    _write_csv(frame, out / "toy.csv")
    frame[["dataset", "model", "fold", "fit_seconds"]].to_csv(
        out / "toy_timings.csv", index=False
    )
    report.write_toy_report(out / "TOY.md", frame, seconds)
    _log(f"wrote {out / 'TOY.md'} ({seconds:.0f} s)")
    return frame


def _append_toy_section(out):
    """REPORT.md gets TOY.md as its last section (headings one level down)."""
    toy_lines = (out / "TOY.md").read_text().splitlines()
    body = ["#" + line if line.startswith("#") else line for line in toy_lines]
    with open(out / "REPORT.md", "a") as handle:
        handle.write("\n" + "\n".join(body) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skgate", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    study = commands.add_parser("reproduce", help="the study of the paper's claims")
    study.add_argument(
        "--quick",
        action="store_true",
        help="a small version (about 25 s on 2 cores)",
    )
    study.add_argument(
        "--out",
        default="benchmarks/results",
        help="output folder (default: benchmarks/results)",
    )
    study.add_argument("--n-jobs", type=int, default=1, help="parallel fits")
    study.add_argument(
        "--seeds",
        type=int,
        default=None,
        help="seeds per setting (default: 2 quick, 5 full)",
    )
    study.add_argument(
        "--toy",
        action="store_true",
        help="also benchmark on scikit-learn's toy datasets (TOY.md)",
    )
    demo_parser = commands.add_parser(
        "demo", help="accuracy of ungated, SiLU and gated attention on three tasks"
    )
    demo_parser.add_argument("--n-samples", type=int, default=1000)
    demo_parser.add_argument("--max-epochs", type=int, default=20)
    demo_parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        if Path(args.out).exists() and not Path(args.out).is_dir():
            parser.error(f"--out must be a folder; {args.out!r} is a file.")
        if args.n_jobs == 0 or args.n_jobs < -1:
            parser.error(f"--n-jobs must be >= 1 or -1 (all cores); got {args.n_jobs}.")
        if args.seeds is not None and args.seeds < 2:
            parser.error(
                f"--seeds must be >= 2 for paired statistics; got {args.seeds}."
            )
        start = time.perf_counter()
        try:
            verdicts = reproduce(
                args.out, quick=args.quick, seeds=args.seeds, n_jobs=args.n_jobs
            )
            if args.toy:
                toy(args.out, quick=args.quick, n_jobs=args.n_jobs)
                _append_toy_section(Path(args.out))
        except KeyboardInterrupt:
            _log(f"interrupted; the sweeps finished so far are in {args.out}")
            return 130
        print(
            f"\nVerdicts ({time.perf_counter() - start:.0f} s, {args.out}/REPORT.md):"
        )
        for claim, verdict in verdicts.items():
            print(f"  {claim}: {verdict}")
        return 0
    if args.n_samples < 10:
        parser.error(f"--n-samples must be >= 10; got {args.n_samples}.")
    if args.max_epochs < 0:
        parser.error(f"--max-epochs must be >= 0; got {args.max_epochs}.")

    table = demo(args.n_samples, args.max_epochs, args.random_state)
    print(
        f"\nHeld-out accuracy (30 % test split, n_samples={args.n_samples}, "
        f"max_epochs={args.max_epochs}, random_state={args.random_state}):\n"
    )
    print(table.to_string(float_format="{:.3f}".format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
