"""Speed and memory of skgate, as ratios against baselines measured in the same run.

Run: ``python benchmarks/bench_speed.py [--quick] [--out benchmarks/results/SPEED.md]``

Every ratio is a median over repeated runs, side by side in one process (or in
child processes, for peak memory), so machine speed cancels out. Nothing here
is asserted: tests check that the fast paths compute the same numbers; this
script measures what they cost.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import compare_speed  # benchmarks/compare_speed.py, beside this script
import numpy as np
import torch
from joblib import Parallel, delayed
from sklearn.neural_network import MLPClassifier

from skgate import GatedAttentionClassifier, make_curved_task
from skgate.geometry import curvature
from skgate.nn import GatedAttentionNet, RepresentationMap
from skgate.parallel import MODELS_PER_JOB

ROOT = Path(__file__).resolve().parents[1]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# -- the hand-written baseline ----------------------------------------------------


class ReferenceNet(torch.nn.Module):
    """The model written by hand from docs/design.md: every token computed."""

    def __init__(self, n_features, n_classes, d_model=64, n_tokens=8, alpha=1.0):
        super().__init__()
        self.n_tokens, self.alpha, self.d = n_tokens, alpha, d_model
        self.embed = torch.nn.Linear(n_features, d_model)
        self.q = torch.nn.Linear(d_model, d_model, bias=False)
        self.k = torch.nn.Linear(d_model, d_model, bias=False)
        self.v = torch.nn.Linear(d_model, d_model, bias=False)
        self.g = torch.nn.Linear(d_model, d_model)
        self.head = torch.nn.Sequential(
            torch.nn.Linear(d_model, d_model),
            torch.nn.GELU(),
            torch.nn.Linear(d_model, n_classes),
        )

    def forward(self, x):
        h = self.embed(x).unsqueeze(1).repeat(1, self.n_tokens, 1)
        scores = self.q(h) @ self.k(h).transpose(1, 2) / math.sqrt(self.d)
        a = torch.softmax(scores, dim=-1) @ self.v(h)
        out = a * (1 + self.alpha * torch.tanh(self.g(h)))
        return self.head(out.mean(dim=1))


def handwritten_fit(module, X, y, epochs, batch_size=64, lr=2e-3, weight_decay=1e-2):
    """A minimal PyTorch training loop: AdamW, shuffled mini-batches."""
    optimizer = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=weight_decay)
    loss_fn = torch.nn.CrossEntropyLoss()
    X = torch.as_tensor(X, dtype=torch.float32)
    y = torch.as_tensor(y, dtype=torch.int64)
    module.train()
    for _ in range(epochs):
        order = torch.randperm(len(X))
        for start in range(0, len(X), batch_size):
            index = order[start : start + batch_size]
            optimizer.zero_grad()
            loss_fn(module(X[index]), y[index]).backward()
            optimizer.step()
    return module


def nominal_training_flops(n_samples, epochs, d=64, n_tokens=8, n_features=2):
    """Multiply-adds x 2 of a fit computing every token, forward and backward (3x)."""
    per_token = 2 * (n_features * d + 4 * d * d + 2 * n_tokens * d)
    per_sample = n_tokens * per_token + 2 * (d * d + 2 * d)
    return 3 * per_sample * n_samples * epochs


def matmul_flops_per_second(size=1024, repeats=20):
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    seconds = median_seconds(lambda: a @ b, repeats)
    return 2 * size**3 / seconds


# -- peak memory in a child process --------------------------------------------------


def peak_rss_of(code):
    """Peak resident memory (MiB) of a fresh Python running ``code``: Linux's
    VmHWM, the peak of the process's own memory (``ru_maxrss`` would count
    this parent's resident set at the fork: it survives ``exec``)."""
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json, resource
        try:
            with open("/proc/self/status") as status:
                line = next(s for s in status if s.startswith("VmHWM:"))
            peak = int(line.split()[1]) / 1024
        except OSError:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(peak))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return float(result.stdout.strip().splitlines()[-1])


SETUP = """
import numpy as np, torch
from skgate import GatedAttentionClassifier, make_curved_task
X, y = make_curved_task(500, random_state=0)
clf = GatedAttentionClassifier(max_epochs=2, random_state=0).fit(X, y)
"""


# -- the benchmarks ------------------------------------------------------------------


def bench_fit(n_samples, epochs, repeats):
    X, y = make_curved_task(n_samples, shape="checkerboard", random_state=0)
    X32 = X.astype(np.float32)
    results = {}

    def skgate_fit():
        GatedAttentionClassifier(max_epochs=epochs, random_state=0).fit(X, y)

    def reference_fit():
        torch.manual_seed(0)
        handwritten_fit(ReferenceNet(2, 2), X32, y, epochs)

    def same_module_fit():
        torch.manual_seed(0)
        handwritten_fit(GatedAttentionNet(2, 2), X32, y, epochs)

    def mlp_fit():
        MLPClassifier((64, 64), max_iter=epochs, random_state=0).fit(X, y)

    fits = {
        "skgate fit": skgate_fit,
        "hand-written loop, hand-written model": reference_fit,
        "hand-written loop, skgate's module": same_module_fit,
        "sklearn MLPClassifier(64, 64)": mlp_fit,
    }
    for fn in fits.values():
        fn()  # warm up
    # Interleaved rounds: each round times every fit once, so a ratio is
    # taken between runs that saw the same state of the machine.
    seconds = {name: [] for name in fits}
    for _ in range(repeats):
        for name, fn in fits.items():
            seconds[name].append(median_seconds(fn, 1))
    for name, times in seconds.items():
        results[name] = statistics.median(times)
        log(f"fit {name}: {results[name]:.3f} s")
    for baseline in list(fits)[1:3]:
        results["ratio", baseline] = statistics.median(
            s / b for s, b in zip(seconds["skgate fit"], seconds[baseline], strict=True)
        )
    return results


def _exact_and_differences(clf, points, layer, repeats):
    """Median seconds of exact and finite-difference curvature, and the
    median ratio of interleaved pairs (both methods see the same machine
    state)."""
    pairs = []
    for _ in range(4 * repeats):
        pairs.append(
            [
                median_seconds(
                    lambda m=method: clf.curvature(points, layer=layer, method=m), 1
                )
                for method in ("exact", "finite_difference")
            ]
        )
    exact, fd = zip(*pairs, strict=True)
    return (
        statistics.median(exact),
        statistics.median(fd),
        statistics.median(e / f for e, f in pairs),
    )


#: Architecture options whose exact curvature is timed against differences.
CURVATURE_OPTIONS = {
    "sigmoid gate": {"gate": "sigmoid"},
    "sigmoid gate per head, 4 heads": {"gate": "sigmoid_head", "n_heads": 4},
    "residual, depth 3": {"residual": True, "depth": 3},
    "pre-LN residual, depth 3": {"residual": True, "norm": "layer", "depth": 3},
    "sequence of 8 tokens, pre-LN, 4 heads": {
        "token_dim": 2,
        "residual": True,
        "norm": "layer",
        "n_heads": 4,
    },
}


def bench_curvature(n_points, repeats):
    X, y = make_curved_task(1000, random_state=0)
    clf = GatedAttentionClassifier(max_epochs=2, random_state=0).fit(X, y)
    points = make_curved_task(n_points, random_state=1)[0]
    results = {}
    for layer in ("attention", "logits"):
        exact, fd, ratio = _exact_and_differences(clf, points, layer, repeats)
        results[(layer, "exact")], results[(layer, "finite_difference")] = exact, fd
        results[(layer, "ratio")] = ratio
        log(f"curvature {layer}: exact / finite difference {ratio:.2f}")
    for name, options in CURVATURE_OPTIONS.items():
        sequence = "token_dim" in options
        data = (
            make_curved_task(1000, n_observations=8, random_state=0)
            if sequence
            else (X, y)
        )
        model = GatedAttentionClassifier(**options, max_epochs=2, random_state=0)
        model.fit(*data)
        few = (
            make_curved_task(n_points // 10, n_observations=8, random_state=1)[0]
            if sequence
            else points
        )
        results[("option", name)] = _exact_and_differences(
            model, few, "attention", repeats
        )
        log(
            f"curvature {name}: exact / finite difference "
            f"{results[('option', name)][2]:.2f}"
        )
    torch.manual_seed(0)
    net = GatedAttentionNet(2, 2).double().eval()
    f = RepresentationMap(net)
    plain = lambda x: net.representation(x)  # noqa: E731  (no jet: nested jvp)
    few = points[:200]
    results["jet 200"] = median_seconds(lambda: curvature(f, few), repeats)
    results["nested jvp 200"] = median_seconds(lambda: curvature(plain, few), 1)
    return results


def bench_scaling(repeats):
    rows = []
    for axis, values in [
        ("n_samples", [500, 1000, 2000, 4000]),
        ("depth", [1, 2, 4]),
        ("d_model", [32, 64, 128]),
    ]:
        for value in values:
            n = value if axis == "n_samples" else 1000
            X, y = make_curved_task(n, random_state=0)
            params = {"max_epochs": 5, "random_state": 0}
            if axis != "n_samples":
                params[axis] = value
            seconds = median_seconds(
                lambda p=params, X=X, y=y: GatedAttentionClassifier(**p).fit(X, y),
                repeats,
            )
            rows.append((axis, value, seconds))
            log(f"scaling {axis}={value}: {seconds:.3f} s")
    slopes = {}
    for axis in ("n_samples", "depth", "d_model"):
        xs = [math.log(v) for a, v, _ in rows if a == axis]
        ys = [math.log(s) for a, _, s in rows if a == axis]
        slopes[axis] = float(np.polyfit(xs, ys, 1)[0])
    return rows, slopes


def _fit_one(seed, X, y, epochs):
    GatedAttentionClassifier(max_epochs=epochs, random_state=seed).fit(X, y)
    return torch.get_num_threads()


def bench_parallel(n_fits):
    """Wall time of n_fits fits, one at a time vs two joblib workers (warmed up)."""
    X, y = make_curved_task(2000, random_state=0)
    Parallel(n_jobs=2)(delayed(_fit_one)(s, X, y, 1) for s in range(2))  # start workers
    times = {}
    for n_jobs in (1, 2):
        start = time.perf_counter()
        threads = Parallel(n_jobs=n_jobs)(
            delayed(_fit_one)(s, X, y, 20) for s in range(n_fits)
        )
        times[n_jobs] = time.perf_counter() - start
        times[f"threads {n_jobs}"] = threads[0]
        log(f"{n_fits} fits with n_jobs={n_jobs}: {times[n_jobs]:.2f} s")
    return times


def bench_memory():
    baseline = peak_rss_of(SETUP)
    curvature_peak = peak_rss_of(
        SETUP
        + """
points = np.random.default_rng(0).uniform(-2, 2, size=(100_000, 2))
kappa = clf.curvature(points)
assert kappa.shape == (100_000,)
"""
    )
    predict_peak = peak_rss_of(
        SETUP
        + """
rows = np.random.default_rng(0).uniform(-2, 2, size=(1_000_000, 2))
labels = clf.predict(rows)
assert labels.shape == (1_000_000,)
"""
    )
    search_peak = peak_rss_of(
        SETUP
        + """
from skgate import GatedAttentionClassifierCV
X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
alphas = list(np.linspace(0, 1.5, 16))
GatedAttentionClassifierCV(alphas, cv=10, random_state=0).fit(X, y)
"""
    )
    log(
        f"peak RSS: setup {baseline:.0f} MiB, curvature {curvature_peak:.0f} MiB, "
        f"predict {predict_peak:.0f} MiB, search {search_peak:.0f} MiB"
    )
    return baseline, curvature_peak, predict_peak, search_peak


def bench_search(repeats):
    """Wall time of the alpha search: the batched CV estimator, GridSearchCV
    with 2 workers, and one single fit, on 2000 rows for 20 epochs."""
    from sklearn.model_selection import GridSearchCV

    from skgate import GatedAttentionClassifierCV

    X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
    alphas4, alphas16 = [0.0, 0.5, 1.0, 1.5], list(np.linspace(0, 1.5, 16))

    def cv(alphas, folds):
        return lambda: GatedAttentionClassifierCV(alphas, cv=folds, random_state=0).fit(
            X, y
        )

    def grid():
        GridSearchCV(
            GatedAttentionClassifier(random_state=0),
            {"alpha": alphas4},
            cv=5,
            n_jobs=2,
        ).fit(X, y)

    def batched_training():
        # What the CV estimator trains as one batch: 4 alphas x 5 folds.
        from sklearn.model_selection import StratifiedKFold

        from skgate._training import fit_together

        folds = [
            (X[train], y[train], None) for train, _ in StratifiedKFold(5).split(X, y)
        ]
        models = [
            GatedAttentionClassifier(alpha=a, random_state=0)
            for a in alphas4
            for _ in folds
        ]
        fit_together(models, folds * len(alphas4))

    rounds = interleaved(
        {
            "GridSearchCV(n_jobs=2), 4 alphas x 5 folds + refit": grid,
            "CV estimator, 4 alphas x 5 folds + refit": cv(alphas4, 5),
            "batched training alone, 4 alphas x 5 folds": batched_training,
            "one fit": lambda: GatedAttentionClassifier(random_state=0).fit(X, y),
        },
        repeats,
    )
    times = {name: seconds for name, (seconds, _) in rounds.items()}
    times["CV estimator / GridSearchCV"] = rounds[
        "CV estimator, 4 alphas x 5 folds + refit"
    ][1]
    times["CV estimator, 16 alphas x 10 folds + refit"] = median_seconds(
        cv(alphas16, 10), 1
    )
    for name, seconds in times.items():
        log(f"search: {name}: {seconds:.2f}")
    return times


def bench_search_parts(repeats):
    """Where the CV estimator's time goes (4 alphas x 5 folds + refit, 2000
    rows, 20 epochs): the fold batch, the scoring and the refit from its own
    ``cv_results_`` and ``refit_time_``, the rest (checks, splits, nets)
    as the difference."""
    from skgate import GatedAttentionClassifierCV

    X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
    parts = {"fold batch": [], "scoring": [], "refit": [], "the rest": []}
    for _ in range(repeats + 1):  # the first warms up
        start = time.perf_counter()
        search = GatedAttentionClassifierCV([0.0, 0.5, 1.0, 1.5], random_state=0)
        search.fit(X, y)
        total = time.perf_counter() - start
        results, n_folds = search.cv_results_, search.n_splits_
        seconds = {
            "fold batch": float(results["mean_fit_time"].sum()) * n_folds,
            "scoring": float(results["mean_score_time"].sum()) * n_folds,
            "refit": search.refit_time_,
        }
        seconds["the rest"] = total - sum(seconds.values())
        for name, value in seconds.items():
            parts[name].append(value)
    parts = {name: statistics.median(values[1:]) for name, values in parts.items()}
    log("search parts: " + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()))
    return parts


def _search_paragraph(parts, ratio, target=0.3):
    """Where the CV estimator's time goes, and what the target ratio to
    GridSearchCV(n_jobs=2) asks of it, from the numbers: ``ratio`` is the
    interleaved ratio of the table above."""
    total = sum(parts.values())
    if ratio <= target:
        verdict = f"within the target of {target} in this run"
    else:
        faster = 1 - target / ratio
        of_folds = faster * total / parts["fold batch"]
        verdict = (
            f"above the target of {target}: the search would have to take "
            f"{faster:.0%} less time, as much as {of_folds:.0%} of its fold "
            "batch's"
        )
    return [
        "### Where the CV estimator's time goes",
        "",
        "4 alphas x 5 folds + refit, 2000 rows, 20 epochs (medians of separate "
        "runs; the fold batch and the scoring from its `cv_results_`, the refit "
        "from `refit_time_`, the rest, checks, splits and building the nets, the "
        "difference):",
        "",
        "| part | seconds | share |",
        "|---|---|---|",
        *[
            f"| {name} | {seconds:.3f} | {seconds / total:.0%} |"
            for name, seconds in parts.items()
        ],
        "",
        f"The CV estimator took {ratio:.3f} of GridSearchCV(n_jobs=2)'s time "
        f"(the ratio above), {verdict}. The refit is one fit alone, on one "
        "thread; a search of more alphas or folds shares it among more models.",
    ]


def _one_by_one(models, X, y):
    from sklearn.base import clone

    return [clone(m).fit(X, y) for m in models]


def _one_batch(models, X, y):
    from sklearn.base import clone

    from skgate._training import fit_together

    return fit_together([clone(m) for m in models], [(X, y, None)] * len(models))


def _matrix_share(models, X, y):
    """The share of a batch's CPU time spent in torch's batched matrix
    products (``bmm``, ``baddbmm``): work the batch cannot share out."""
    from torch.profiler import profile

    with profile() as prof:
        _one_batch(models, X, y)
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    products = sum(
        e.self_cpu_time_total for e in events if e.key in ("aten::bmm", "aten::baddbmm")
    )
    return products / total


def _cpu_seconds(fn):
    """(user, system) CPU seconds of one call of ``fn`` in this process:
    system time is mostly the kernel's page faults on fresh memory."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF)
    fn()
    after = resource.getrusage(resource.RUSAGE_SELF)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def bench_batches(repeats):
    """Ten models (5 alphas x 2 seeds, 1000 rows, 10 epochs) fitted one by
    one against the same ten as one batch of the training engine, for copied
    tokens and for sequences of 8 tokens, on one torch thread and on torch's
    default number; with the batch's share of time in matrix products (one
    thread)."""
    from functools import partial

    times = {}
    forms = (("copied tokens", 1, None), ("sequences of 8 tokens", 8, 2))
    default = torch.get_num_threads()
    for form, observations, token_dim in forms:
        X, y = make_curved_task(1000, n_observations=observations, random_state=0)
        models = [
            GatedAttentionClassifier(
                token_dim=token_dim, max_epochs=10, alpha=alpha, random_state=seed
            )
            for alpha in (0.0, 0.5, 1.0, 1.5, 2.0)
            for seed in (0, 1)
        ]
        for threads in sorted({1, default}):
            torch.set_num_threads(threads)
            try:
                alone = median_seconds(partial(_one_by_one, models, X, y), repeats)
                batched = median_seconds(partial(_one_batch, models, X, y), repeats)
                if threads == 1:
                    times[form, "matrix share"] = _matrix_share(models, X, y)
                    times[form, "cpu"] = (
                        _cpu_seconds(partial(_one_by_one, models, X, y)),
                        _cpu_seconds(partial(_one_batch, models, X, y)),
                    )
            finally:
                torch.set_num_threads(default)
            times[form, threads] = (alone, batched)
            log(
                f"batches: {form}, {threads} thread(s): one by one {alone:.2f} s, "
                f"one batch {batched:.2f} s"
            )
    return times


def interleaved(fns, repeats):
    """Median seconds of each of ``fns`` (name -> callable), timed in
    interleaved rounds (each round runs every one once, in turn first and
    last, so that no order is favoured), and the median of each one's
    per-round ratio to the first."""
    for fn in fns.values():
        fn()  # warm up
    seconds = {name: [] for name in fns}
    for round_ in range(repeats):
        order = list(fns.items())
        for name, fn in order if round_ % 2 == 0 else reversed(order):
            seconds[name].append(median_seconds(fn, 1))
    first = next(iter(fns))
    return {
        name: (
            statistics.median(times),
            statistics.median(
                t / b for t, b in zip(times, seconds[first], strict=True)
            ),
        )
        for name, times in seconds.items()
    }


class _Unpadded:
    """The one loop with an epoch's last batch computed on its real rows
    alone: what a fit would cost without the padding that makes a model
    compute alike alone and in a batch."""

    def computed_rows(self, reals):
        return int(max(max(reals), 2))


def bench_padding(repeats, sizes=(16, 32, 64, 128, 256)):
    """A fit (2000 rows, 20 epochs) at each batch size against the same fit
    without padding (interleaved): the time the padded rows cost, and their
    share of the rows computed."""
    import skgate._engine.fitting as training
    from skgate._engine.loop import BatchedTrainer

    unpadded = type("UnpaddedTrainer", (_Unpadded, BatchedTrainer), {})
    X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
    results = {}
    for size in sizes:

        def fit(trainer, size=size):
            training.BatchedTrainer = trainer
            try:
                GatedAttentionClassifier(batch_size=size, random_state=0).fit(X, y)
            finally:
                training.BatchedTrainer = BatchedTrainer

        times = interleaved(
            {
                "padded": lambda: fit(BatchedTrainer),
                "unpadded": lambda: fit(unpadded),
            },
            repeats,
        )
        computed = math.ceil(len(X) / size) * size
        results[size] = {
            "seconds": times["padded"][0],
            "unpadded seconds": times["unpadded"][0],
            # The padded fit's extra time as a share of its own: 1 - the
            # median per-round ratio unpadded / padded.
            "cost": 1 - times["unpadded"][1],
            "padded rows": (computed - len(X)) / computed,
        }
        log(
            f"padding: batch_size {size}: {times['padded'][0]:.3f} s padded, "
            f"{times['unpadded'][0]:.3f} s not; rows computed beyond the data "
            f"{results[size]['padded rows']:.1%}"
        )
    return results


def bench_command_line(repeats):
    """``python -m skgate --help`` and a usage error, against importing what
    the commands need (torch, scikit-learn, skorch: what --help imported
    before), each a fresh process, interleaved."""

    # The study (benchmarks/study) is imported from the repository.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "benchmarks")}
    subprocess.run([sys.executable, "-c", "import study.cli"], env=env, check=True)

    def run(*args):
        return lambda: subprocess.run(
            [sys.executable, *args], capture_output=True, check=False, env=env
        )

    times = interleaved(
        {
            "import the study's command line": run("-c", "import study.cli"),
            "python -m skgate --help": run("-m", "skgate", "--help"),
            "python -m skgate compare (usage error)": run("-m", "skgate", "compare"),
            "python -c pass": run("-c", "pass"),
        },
        repeats,
    )
    for name, (seconds, _) in times.items():
        log(f"command line: {name}: {seconds:.2f} s")
    return times


def bench_engine_choices(repeats):
    """The measurements behind the training engine's constants: a small
    fit on one torch thread or two (ONE_THREAD_WORK); 20 and 40 fold models,
    and 40 sequence models, as one network or in parts (MAX_MODELS_PER_NETWORK); the
    classifier's validation score against scikit-learn's accuracy_score;
    the refit inside the fold batch against after it; the state copy of
    partial_fit against copy.deepcopy."""
    import copy

    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import StratifiedKFold

    import skgate._engine.fitting as training
    import skgate._engine.loop as batched
    from skgate._engine.hooks import _cloned
    from skgate._training import fit_together

    X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
    results = {}

    def with_constant(module, name, value, fn):
        before = getattr(module, name)
        setattr(module, name, value)
        try:
            fn()
        finally:
            setattr(module, name, before)

    def fit():
        GatedAttentionClassifier(random_state=0).fit(X, y)

    results["threads"] = interleaved(
        {
            "one thread (the engine's choice)": fit,
            "the caller's threads": lambda: with_constant(
                batched, "ONE_THREAD_WORK", 0, fit
            ),
        },
        repeats,
    )
    folds = [(X[tr], y[tr], None) for tr, _ in StratifiedKFold(5).split(X, y)]

    def batch(n_alphas, extra=()):
        models = [
            GatedAttentionClassifier(alpha=a, random_state=0)
            for a in np.linspace(0, 1.5, n_alphas)
            for _ in folds
        ]
        more = [GatedAttentionClassifier(alpha=a, random_state=0) for a in extra]
        return lambda: fit_together(
            models + more, folds * n_alphas + [(X, y, None)] * len(more)
        )

    for n_alphas in (4, 8):
        n = n_alphas * len(folds)
        results[f"{n} models"] = interleaved(
            {
                "one network": lambda n_alphas=n_alphas, n=n: with_constant(
                    training, "MAX_MODELS_PER_NETWORK", n, batch(n_alphas)
                ),
                "two networks": lambda n_alphas=n_alphas, n=n: with_constant(
                    training, "MAX_MODELS_PER_NETWORK", n // 2, batch(n_alphas)
                ),
            },
            repeats,
        )
    # Sequences of 8 tokens (5 epochs): a step's work is 8 times a copied
    # token's, so the best network size may differ.
    X_seq = np.hstack([X] * 8)
    seq_folds = [
        (X_seq[tr], y[tr], None) for tr, _ in StratifiedKFold(5).split(X_seq, y)
    ]

    def sequences():
        models = [
            GatedAttentionClassifier(alpha=a, token_dim=2, max_epochs=5, random_state=0)
            for a in np.linspace(0, 1.5, 8)
            for _ in seq_folds
        ]
        fit_together(models, seq_folds * 8)

    results["40 sequence models"] = interleaved(
        {
            "one network": lambda: with_constant(
                training, "MAX_MODELS_PER_NETWORK", 40, sequences
            ),
            "two networks": lambda: with_constant(
                training, "MAX_MODELS_PER_NETWORK", 20, sequences
            ),
        },
        repeats,
    )
    alphas = (0.0, 0.5, 1.0, 1.5)
    results["refit"] = interleaved(
        {
            "folds, then one refit": lambda: (batch(4)(), fit()),
            "folds and every alpha's refit as one batch": batch(4, alphas),
        },
        repeats,
    )
    held_out = GatedAttentionClassifier(max_epochs=1, random_state=0).fit(X, y)
    outputs = torch.randn(200, 2)
    data = batched.Rows(torch.randn(200, 2), torch.randint(0, 2, (200,)))
    calls = 200
    results["validation score"] = interleaved(
        {
            "the classifier's": lambda: [
                held_out._validation_score(outputs, data) for _ in range(calls)
            ],
            "accuracy_score": lambda: [
                accuracy_score(data.y.numpy(), outputs.argmax(dim=1).numpy())
                for _ in range(calls)
            ],
        },
        repeats,
    )
    state = held_out.net_.optimizer_.state_dict()
    results["state copy"] = interleaved(
        {
            "_cloned": lambda: [_cloned(state) for _ in range(calls)],
            "copy.deepcopy": lambda: [copy.deepcopy(state) for _ in range(calls)],
        },
        repeats,
    )
    for name, times in results.items():
        log(
            f"engine: {name}: "
            + ", ".join(f"{k} {v[0]:.3f} s" for k, v in times.items())
        )
    return results


def bench_backward(repeats, steps=20):
    """One training step of 10 sequence models (64 rows, 8 tokens, one
    thread): the engine's written-out backward against ``torch.func``'s
    ``vmap`` of autograd over the module's own forward (``functional_call``
    on the stacked weights), the two ways to batch the backward pass."""
    import copy
    from functools import partial

    from torch.func import functional_call, grad_and_value, vmap

    from skgate._engine.loop import trained_weights
    from skgate.nn._stacked import losses_and_gradients

    M, B = 10, 64
    torch.manual_seed(0)
    nets = [GatedAttentionNet(16, 2, token_dim=2) for _ in range(M)]
    names = trained_weights(nets[0])
    stacked = [
        torch.stack([dict(n.named_parameters())[k].detach() for n in nets])
        for k in names
    ]
    x, y = torch.randn(M, B, 16), torch.randint(0, 2, (M, B))
    w, alphas = torch.ones(M, B), torch.ones(M)
    shell = copy.deepcopy(nets[0]).to("meta")

    def loss(weights, xb, yb, wb):
        losses = torch.nn.functional.cross_entropy(
            functional_call(shell, weights, (xb,)), yb, reduction="none"
        )
        return (losses * wb).sum() / wb.sum()

    per_model = vmap(grad_and_value(loss))
    weights = dict(zip(names, stacked, strict=True))

    def run(step):
        for _ in range(steps):
            step()

    per_model(weights, x, y, w)  # vmap's first call traces the function

    written = partial(
        losses_and_gradients,
        nets[0],
        names,
        stacked,
        alphas,
        x,
        y,
        w,
        regression=False,
    )
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        times = {
            "written-out": median_seconds(partial(run, written), repeats) / steps,
            "vmap": median_seconds(
                partial(run, partial(per_model, weights, x, y, w)), repeats
            )
            / steps,
        }
    finally:
        torch.set_num_threads(before)
    log(
        f"backward: written-out {times['written-out'] * 1e3:.1f} ms, "
        f"vmap {times['vmap'] * 1e3:.1f} ms per step of {M} models"
    )
    return times


def _threads(n):
    return "one thread" if n == 1 else f"{n} threads"


def _batch_paragraph(batches):
    """What the ten-model batches measured, and what bounds them."""
    sequences = "sequences of 8 tokens"
    alone, batched = batches[sequences, 1]
    share = batches[sequences, "matrix share"]
    (user_alone, sys_alone), (user_batch, sys_batch) = batches[sequences, "cpu"]
    return [
        "Ten models (5 alphas x 2 seeds, 1000 rows, 10 epochs) as one batch "
        "against one by one, each a batch of one of the same engine: "
        + "; ".join(
            f"{form}, {_threads(threads)}: {value[0]:.2f} s one by one, "
            f"{value[1]:.2f} s batched"
            for (form, threads), value in batches.items()
            if isinstance(threads, int)
        )
        + f". Matrix products take {share:.0%} of the batched sequences' time on "
        "one thread. A batch computes each model's products in full, so with "
        "every other operation of the batch free it would still take "
        f"{share * batched / alone:.2f} of one by one there. Batching shares "
        "out the fixed cost of a step (kernel calls, Python); a sequence "
        "model's step is mostly arithmetic. CPU time on one thread, "
        f"sequences: batched {user_batch:.2f} s user and {sys_batch:.2f} s "
        f"system, one by one {user_alone:.2f} s and {sys_alone:.2f} s"
        + (
            " (system time is the kernel's page faults on the batch's large "
            "temporaries, which the C allocator takes from the kernel and "
            "gives back each step; how much of it a run pays varied between "
            "runs on this machine)."
            if sys_batch > 0.05 * user_batch
            else "."
        ),
    ]


#: The sweeps of the five claims (the controls' long budgets would make the
#: unbatched half of this benchmark run for most of an hour).
STUDY_SWEEPS = ("gates", "alpha", "depth_init", "depth_trained")


def bench_study(n_jobs=2):
    """Wall time of the claims' sweeps of the committed design
    (:data:`STUDY_SWEEPS`, ``n_jobs`` workers), each setting fitted alone and
    in batches."""
    from study import StudyDesign
    from study.sweeps import run_sweep

    sweeps = StudyDesign.full().sweeps()
    settings = [s for name in STUDY_SWEEPS for s in sweeps[name]]
    times = {}
    for batched in (False, True):
        start = time.perf_counter()
        run_sweep(settings, n_jobs=n_jobs, progress=False, batched=batched)
        times[batched] = time.perf_counter() - start
        log(
            f"study sweeps ({len(settings)} fits), batched={batched}: "
            f"{times[batched]:.1f} s"
        )
    return len(settings), times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/SPEED.md"))
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 5
    threads = torch.get_num_threads()
    load_before = os.getloadavg()[0]

    peak = matmul_flops_per_second()
    log(f"matmul: {peak / 1e9:.0f} GFLOP/s")
    fit = bench_fit(2000, 20, repeats)
    flops = nominal_training_flops(2000, 20)
    curv = bench_curvature(2000, repeats)
    rows, slopes = bench_scaling(max(1, repeats // 2))
    parallel = bench_parallel(8)
    search = bench_search(max(1, repeats // 2))
    batches = bench_batches(max(1, repeats // 2))
    backward = bench_backward(repeats)
    padding = bench_padding(repeats)
    command = bench_command_line(repeats)
    choices = bench_engine_choices(max(1, repeats // 2))
    search_parts = bench_search_parts(max(1, repeats // 2))
    n_study, study = bench_study()
    compare = compare_speed.measure()
    setup_rss, curvature_rss, predict_rss, search_rss = bench_memory()
    X, y = make_curved_task(2000, shape="checkerboard", random_state=0)
    X_test, y_test = make_curved_task(1000, shape="checkerboard", random_state=1)
    accuracy = {
        "skgate (gated, alpha=1)": GatedAttentionClassifier(random_state=0)
        .fit(X, y)
        .score(X_test, y_test),
        "sklearn MLPClassifier(64, 64)": MLPClassifier(
            (64, 64), max_iter=20, random_state=0
        )
        .fit(X, y)
        .score(X_test, y_test),
    }

    skgate_fit = fit["skgate fit"]
    ratios = {
        "fit / hand-written loop (hand-written model)": fit[
            "ratio", "hand-written loop, hand-written model"
        ],
        "fit / hand-written loop (skgate's module)": fit[
            "ratio", "hand-written loop, skgate's module"
        ],
        "exact / finite-difference curvature (attention, the default)": curv[
            ("attention", "ratio")
        ],
        "exact / finite-difference curvature (logits)": curv[("logits", "ratio")],
        **{
            f"exact / finite-difference curvature ({name})": curv[("option", name)][2]
            for name in CURVATURE_OPTIONS
        },
        "nested jvp / second-order forward pass (200 points)": curv["nested jvp 200"]
        / curv["jet 200"],
        "2 workers / 1 worker, wall time of 8 fits": parallel[2] / parallel[1],
        "compare_gates at its defaults (1000 x 20, n_jobs=1) / one fit": compare[
            "tables"
        ]["n_jobs=1 / one fit"].iloc[0],
        "compare_gates, busy machine / quiet, one torch thread per job": compare[
            "busy"
        ][1, "busy"]
        / compare["busy"][1, "quiet"],
        "study sweeps, batched / each fit alone (2 workers)": study[True]
        / study[False],
        "sequence step of 10 models, torch.func.vmap / written-out backward": (
            backward["vmap"] / backward["written-out"]
        ),
        **{
            f"10 models in one batch / one by one ({key[0]}, {_threads(key[1])})": (
                value[1] / value[0]
            )
            for key, value in batches.items()
            if isinstance(key[1], int)
        },
        **{
            f"{name} / one fit": seconds / search["one fit"]
            for name, seconds in search.items()
            if name not in ("one fit", "CV estimator / GridSearchCV")
        },
        "CV estimator / GridSearchCV(n_jobs=2), 4 alphas x 5 folds + refit": search[
            "CV estimator / GridSearchCV"
        ],
        **{
            f"fit at batch_size {size} / the same fit without padding": 1
            / (1 - value["cost"])
            for size, value in padding.items()
        },
        "python -m skgate --help / importing the study's command line": command[
            "python -m skgate --help"
        ][1],
        "small fit on the caller's 2 threads / on one thread": choices["threads"][
            "the caller's threads"
        ][1],
        "20 fold models as two networks of 10 / as one": choices["20 models"][
            "two networks"
        ][1],
        "40 fold models as two networks of 20 / as one": choices["40 models"][
            "two networks"
        ][1],
        "40 sequence models as two networks of 20 / as one": choices[
            "40 sequence models"
        ]["two networks"][1],
        "folds and every alpha's refit as one batch / folds, then one refit": choices[
            "refit"
        ]["folds and every alpha's refit as one batch"][1],
        "accuracy_score / the classifier's validation score": choices[
            "validation score"
        ]["accuracy_score"][1],
        "copy.deepcopy / _cloned, an optimizer state": choices["state copy"][
            "copy.deepcopy"
        ][1],
    }
    flop_limit = flops / peak
    load_after = os.getloadavg()[0]
    quick = " --quick" if args.quick else ""
    lines = [
        "# skgate speed and memory",
        "",
        f"Generated by `python benchmarks/bench_speed.py{quick}` "
        f"on {platform.machine()} with {os.cpu_count()} cores, torch "
        f"{torch.__version__} ({threads} threads), Python {platform.python_version()}. "
        f"Times are medians of {repeats} runs; ratios are taken within this run "
        "(the fit's against the hand-written loops: the median of the ratios of "
        "interleaved rounds, each round timing every fit once). The machine's "
        f"load average (1 minute) was {load_before:.2f} at the start and "
        f"{load_after:.2f} at the end (this run's own work included).",
        "",
        "## Ratios",
        "",
        "| ratio | value |",
        "|---|---|",
        *[f"| {name} | {value:.3f} |" for name, value in ratios.items()],
        "",
        "## Training (2000 points, 20 epochs, batch 64, AdamW)",
        "",
        "| fit | seconds |",
        "|---|---|",
        *[
            f"| {name} | {seconds:.3f} |"
            for name, seconds in fit.items()
            if isinstance(name, str)
        ],
        "",
        f"Matrix multiply: {peak / 1e9:.0f} GFLOP/s. The model's nominal training "
        f"work (every token computed, forward and backward) is {flops / 1e9:.1f} "
        f"GFLOP, a FLOP limit of {flop_limit:.3f} s: skgate's fit reaches "
        f"{flop_limit / skgate_fit:.1%} of it, the hand-written loop "
        f"{flop_limit / fit['hand-written loop, hand-written model']:.1%}. skgate "
        "computes copied tokens once (they are equal, so attention over them is "
        "uniform and the block's output is the same for each), which is why its "
        "nominal throughput can exceed the hand-written model's.",
        "",
        "Held-out accuracy on the same data (checkerboard, 2000 train / 1000 test, "
        "20 epochs each): "
        + ", ".join(f"{name} {value:.3f}" for name, value in accuracy.items())
        + ".",
        "",
        "## Curvature (2000 points, 8 directions)",
        "",
        "| layer | method | seconds |",
        "|---|---|---|",
        *[
            f"| {layer} | {method} | {curv[(layer, method)]:.3f} |"
            for layer in ("attention", "logits")
            for method in ("exact", "finite_difference")
        ],
        "",
        "Architecture options (attention layer; 2000 points, sequences 200):",
        "",
        "| option | exact (s) | finite difference (s) | ratio |",
        "|---|---|---|---|",
        *[
            f"| {name} | {curv[('option', name)][0]:.3f} | "
            f"{curv[('option', name)][1]:.3f} | {curv[('option', name)][2]:.2f} |"
            for name in CURVATURE_OPTIONS
        ],
        "",
        f"On 200 points of an untrained model: second-order forward pass "
        f"{curv['jet 200']:.3f} s, nested `torch.func.jvp` "
        f"{curv['nested jvp 200']:.3f} s.",
        "",
        "## Memory (peak resident set of a fresh process)",
        "",
        "| process | peak RSS (MiB) |",
        "|---|---|",
        f"| import, fit a model on 500 points | {setup_rss:.0f} |",
        f"| the same, then curvature of 100 000 points | {curvature_rss:.0f} |",
        f"| the same, then predict 1 000 000 rows | {predict_rss:.0f} |",
        f"| the same, then GatedAttentionClassifierCV, 16 alphas x 10 folds "
        f"(160 models at once) on 2000 rows | {search_rss:.0f} |",
        "",
        "## Scaling (fit, 5 epochs)",
        "",
        "| axis | value | seconds |",
        "|---|---|---|",
        *[f"| {axis} | {value} | {seconds:.3f} |" for axis, value, seconds in rows],
        "",
        "Log-log slopes: "
        + ", ".join(f"{axis} {slope:.2f}" for axis, slope in slopes.items())
        + " (1 is linear).",
        "",
        "## Batched training",
        "",
        "The CV estimator trains its 4 alphas x 5 folds as one network, scores "
        "the 20 models on their held-out folds (accuracy and `curvature_score`, "
        "one model at a time) and refits the chosen alpha (a batch of one): of its "
        f"{search['CV estimator, 4 alphas x 5 folds + refit']:.2f} s, the batched "
        "training of the 20 models takes "
        f"{search['batched training alone, 4 alphas x 5 folds']:.2f} s "
        f"(one fit alone: {search['one fit']:.2f} s). The study's sweeps train "
        "settings that differ only in seed, alpha and learning rate as one batch "
        f"(at most {MODELS_PER_JOB} settings per batch): the {n_study} fits of the "
        f"committed design's sweeps of the five claims ({', '.join(STUDY_SWEEPS)}) "
        "take "
        f"{study[False]:.0f} s fitted one by one and {study[True]:.0f} s batched "
        "(2 workers each; the time also holds each fit's measurements, which "
        "batching does not change).",
        "",
        *_batch_paragraph(batches),
        "",
        *_search_paragraph(search_parts, search["CV estimator / GridSearchCV"]),
        "",
        "## Padding",
        "",
        "A fit (2000 rows, 20 epochs) at each batch size, against the same fit "
        "with an epoch's last batch computed on its real rows alone (interleaved "
        "rounds). Only that batch is padded (to batch_size, with rows of weight "
        "0), so that a model computes alike alone and beside models with more "
        "rows.",
        "",
        "| batch_size | seconds | without padding | padding's share of the time "
        "| rows computed beyond the data |",
        "|---|---|---|---|---|",
        *[
            f"| {size} | {value['seconds']:.3f} | {value['unpadded seconds']:.3f} "
            f"| {value['cost']:.1%} | {value['padded rows']:.1%} |"
            for size, value in padding.items()
        ],
        "",
        "## Command line",
        "",
        "Each a fresh process (medians of interleaved rounds): the arguments are "
        "read before torch, scikit-learn or skorch is imported.",
        "",
        "| process | seconds |",
        "|---|---|",
        *[f"| {name} | {value[0]:.2f} |" for name, value in command.items()],
        "",
        "## The engine's constants",
        "",
        "What the training engine's choices were measured against (interleaved "
        "rounds; 2000 rows, 20 epochs, 5 folds; the sequence models 5 epochs of "
        "8 tokens):",
        "",
        "| choice | against | seconds |",
        "|---|---|---|",
        *[
            f"| {group} | {name} | {value[0]:.3f} |"
            for group, times in choices.items()
            for name, value in times.items()
        ],
        "",
        *compare_speed.section(compare),
        "## Parallel fits",
        "",
        f"Eight 20-epoch fits on 2000 points: n_jobs=1 {parallel[1]:.2f} s "
        f"({parallel['threads 1']} torch threads), n_jobs=2 {parallel[2]:.2f} s "
        f"({parallel['threads 2']} torch thread per worker: joblib's loky backend "
        "caps each worker at cores / n_jobs threads, so two workers do not fight "
        "over the cores).",
        "",
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(json.dumps({k: round(v, 4) for k, v in ratios.items()}, indent=1))
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
