"""Ctrl-C during fit, with a real SIGINT in a fresh interpreter: an
estimator's own fit (and partial_fit) returns the model trained so far,
with a warning; a CV estimator raises KeyboardInterrupt and is left as it
was (never half-fitted)."""

import subprocess
import sys

import pytest

#: Fit the named estimator with a SIGINT sent once its first epoch runs;
#: prints what came of it.
_SCRIPT = """
import os, signal, sys, threading, time, warnings
# Ctrl-C raises KeyboardInterrupt even when the suite runs as a background
# job (whose children start with SIGINT ignored, and would train 10**6
# epochs until the test's timeout).
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
from skgate import (GatedAttentionClassifier, GatedAttentionClassifierCV,
                    GatedAttentionRegressor)
from skgate._engine import loop

kind = sys.argv[1]
started = threading.Event()
epoch = loop.BatchedTrainer._epoch

def marked(self, pool, *args, **kwargs):
    # The CV estimator: interrupted in its refit (one model), after the
    # fold models have set its search's results.
    if not kind.startswith("cv") or len(pool.sizes) == 1:
        started.set()
    return epoch(self, pool, *args, **kwargs)

loop.BatchedTrainer._epoch = marked

def interrupt():
    started.wait()
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGINT)

rng = np.random.default_rng(0)
X = rng.normal(size=(64, 1, 40)) if kind.endswith("series") else rng.normal(
    size=(120, 5))
y = np.array([0, 1] * (len(X) // 2))
common = dict(d_model=8, random_state=0)
if kind.startswith("regressor"):
    model = GatedAttentionRegressor(max_epochs=10**6, **common)
    y = y + rng.normal(size=len(y))
elif kind.startswith("cv"):
    model = GatedAttentionClassifierCV(alphas=(0.0, 1.0), cv=2,
                                       max_epochs=400, **common)
else:
    model = GatedAttentionClassifier(max_epochs=10**6, **common)
threading.Thread(target=interrupt, daemon=True).start()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        if kind.startswith("partial"):
            model.partial_fit(np.repeat(X, 2000, axis=0), np.repeat(y, 2000),
                              classes=[0, 1])
        else:
            model.fit(X, y)
    except KeyboardInterrupt:
        print("RAISED", sorted(k for k in vars(model) if k.endswith("_")))
        sys.exit(0)
interrupted = [str(w.message) for w in caught if "interrupted" in str(w.message)]
print("RETURNED", model.n_iter_, len(model.loss_curve_),
      model.predict(X[:4]).shape, len(interrupted))
print(interrupted[0] if interrupted else "")
"""


def _run(kind):
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, kind],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind", ["classifier", "classifier-series", "regressor", "partial"]
)
def test_ctrl_c_in_fit_keeps_the_model_trained_so_far(kind):
    lines = _run(kind)
    words = lines[0].split()
    assert words[0] == "RETURNED", lines
    n_iter, curve = int(words[1]), int(words[2])
    assert n_iter == curve and n_iter < 10**6
    assert words[-1] == "1"  # one warning, saying so
    assert "was interrupted (KeyboardInterrupt)" in lines[1]
    assert "the model trained so far is kept" in lines[1]


@pytest.mark.slow
def test_ctrl_c_in_a_cv_estimator_leaves_it_unfitted():
    lines = _run("cv")
    assert lines[0] == "RAISED []", lines


class _InterruptAt:
    """Wraps ``function`` so that its ``n``-th call raises KeyboardInterrupt
    (as a SIGINT arriving there would)."""

    def __init__(self, function, n):
        self.function, self.n, self.calls = function, n, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls == self.n:
            raise KeyboardInterrupt
        return self.function(*args, **kwargs)


@pytest.mark.parametrize("where", ["EpochRecord", "_validate", "epoch_loss"])
@pytest.mark.parametrize("early_stopping", [False, True])
def test_an_interrupt_between_an_epochs_records_keeps_them_aligned(
    monkeypatch, where, early_stopping
):
    # A signal may arrive after an epoch's loss is recorded and before its
    # batches or its validation row are: the fit still returns, with the
    # finished epochs only, each with all of its records.
    import warnings

    import numpy as np

    from skgate import GatedAttentionRegressor
    from skgate._engine import loop

    if where == "_validate":
        validate = _InterruptAt(loop.BatchedTrainer._validate, 3)
        monkeypatch.setattr(
            loop.BatchedTrainer, where, lambda self, *a: validate(self, *a)
        )
    else:
        monkeypatch.setattr(loop, where, _InterruptAt(getattr(loop, where), 3))
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    model = GatedAttentionRegressor(
        d_model=8, max_epochs=6, early_stopping=early_stopping, random_state=0
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    assert any("was interrupted" in str(w.message) for w in caught)
    # Without validation, an epoch is finished before it would be scored.
    finished = 3 if where == "_validate" and not early_stopping else 2
    assert model.n_iter_ == len(model.loss_curve_) == finished
    assert len(model.history_) == finished
    assert all("train_loss" in row and row["batches"] for row in model.history_)
    if early_stopping:
        assert all("valid_loss" in row for row in model.history_)


def _moons():
    from sklearn.datasets import make_moons

    return make_moons(120, noise=0.2, random_state=0)


class _RaiseAt:
    """A skorch callback that raises ``error`` in its ``method`` once the
    history holds ``epochs`` rows (a row begun counts)."""

    def __new__(cls, error, method="on_epoch_end", epochs=2):
        from skorch.callbacks import Callback

        def hook(self, net, **kwargs):
            if len(net.history) >= epochs:
                raise error

        return type("RaiseAt", (Callback,), {method: hook})()


@pytest.mark.parametrize("method", ["on_epoch_end", "on_batch_end"])
def test_a_callback_that_stops_training_is_not_an_interruption(method):
    """skorch's callbacks stop training by raising KeyboardInterrupt
    (EarlyStopping does): the fit ends there without a warning, and
    n_iter_, loss_curve_ and history_ count the same finished epochs (a row
    the stop cut short is not kept)."""
    import warnings

    from skgate import GatedAttentionClassifier

    X, y = _moons()
    model = GatedAttentionClassifier(
        callbacks=[_RaiseAt(KeyboardInterrupt, method)],
        d_model=8,
        max_epochs=6,
        batch_size=32,
        random_state=0,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    assert not [w for w in caught if "interrupted" in str(w.message)]
    finished = 2 if method == "on_epoch_end" else 1
    assert model.n_iter_ == len(model.loss_curve_) == len(model.history_) == finished
    assert all("dur" in row for row in model.history_)


def test_ctrl_c_ends_a_search_or_a_batch_even_with_callbacks(monkeypatch):
    """Ctrl-C (outside a callback) in a model with callbacks or verbose
    output, which trains alone: fit_together and the CV estimators raise
    it, as they do for their batches, and the search is left unfitted (an
    estimator's own fit keeps what trained instead)."""
    import contextlib
    import io

    from skgate import GatedAttentionClassifier, GatedAttentionClassifierCV
    from skgate._engine import loop
    from skgate.parallel import fit_together

    X, y = _moons()
    monkeypatch.setattr(loop, "epoch_loss", _InterruptAt(loop.epoch_loss, 2))
    with pytest.raises(KeyboardInterrupt):
        fit_together([GatedAttentionClassifier(verbose=1, d_model=8)], [(X, y)])
    monkeypatch.setattr(loop, "epoch_loss", _InterruptAt(loop.epoch_loss.function, 2))
    search = GatedAttentionClassifierCV(alphas=(0.0, 1.0), cv=2, verbose=1, d_model=8)
    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stdout(io.StringIO()):
        search.fit(X, y)
    assert not hasattr(search, "alpha_")


def test_a_command_lines_interruption_is_never_kept(monkeypatch):
    """skgate.outputs.Interrupted (Ctrl-C, SIGTERM or SIGHUP in a command)
    ends an estimator's own fit too: a command that fits estimators one
    after another stops at once instead of going on to the next."""
    from skgate import GatedAttentionClassifier
    from skgate._engine import loop
    from skgate.outputs import Interrupted

    class AsCommand(_InterruptAt):
        def __call__(self, *args, **kwargs):
            self.calls += 1
            if self.calls == self.n:
                raise Interrupted
            return self.function(*args, **kwargs)

    X, y = _moons()
    monkeypatch.setattr(loop, "epoch_loss", AsCommand(loop.epoch_loss, 2))
    model = GatedAttentionClassifier(d_model=8, max_epochs=4)
    with pytest.raises(Interrupted):
        model.fit(X, y)
    assert not hasattr(model, "net_")


#: A command (skgate.outputs.run_main) that fits estimators one after
#: another, as the study's sweeps do; READY once the first fit trains.
_COMMAND = """
import argparse, sys, threading
import numpy as np
from skgate import GatedAttentionClassifier
from skgate._engine import loop
from skgate.outputs import run_main

epoch = loop.BatchedTrainer._epoch
def marked(self, *args, **kwargs):
    print("READY", flush=True)
    loop.BatchedTrainer._epoch = epoch
    return epoch(self, *args, **kwargs)
loop.BatchedTrainer._epoch = marked

def run(args, parser):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 5)), np.array([0, 1] * 60)
    for i in range(3):
        GatedAttentionClassifier(max_epochs=10**6, d_model=8).fit(X, y)
        print(f"fit {i} done", flush=True)
    return 0

run_main(lambda: (argparse.Namespace(out=None), None), lambda args: run)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "signal_name, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)]
)
def test_a_signal_ends_a_command_that_fits_one_estimator_after_another(
    signal_name, code
):
    """An estimator's own fit keeps what trained on Ctrl-C and returns; in a
    command, the signal (Ctrl-C, SIGTERM, SIGHUP) must end the command: the
    study's reproduce went on to its next fits after SIGTERM."""
    import signal

    process = subprocess.Popen(
        [sys.executable, "-c", _COMMAND],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "READY"
    process.send_signal(getattr(signal, signal_name))
    out, err = process.communicate(timeout=120)
    assert process.returncode == code, err[-2000:]
    assert "done" not in out
    assert err.strip().splitlines()[-1] == "interrupted; nothing was written"


def test_ctrl_c_inside_a_callback_is_not_the_callbacks_stop():
    """A real SIGINT that lands while a callback runs (PrintLog's table with
    verbose=1, a slow callback) is Ctrl-C, not the callback's stop: a CV
    search raises it and stays unfitted, an estimator's own fit keeps what
    trained and warns (it was taken for EarlyStopping's stop, silently)."""
    import signal
    import threading
    import warnings

    from skorch.callbacks import Callback

    from skgate import GatedAttentionClassifier, GatedAttentionClassifierCV

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")

    class SignalHere(Callback):
        def on_epoch_end(self, net, **kwargs):
            if len(net.history) == 2:
                signal.raise_signal(signal.SIGINT)  # lands in this callback

    X, y = _moons()
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        search = GatedAttentionClassifierCV(
            alphas=(0.0, 1.0), cv=2, d_model=8, max_epochs=5, callbacks=[SignalHere()]
        )
        with pytest.raises(KeyboardInterrupt):
            search.fit(X, y)
        assert not hasattr(search, "alpha_")
        model = GatedAttentionClassifier(
            d_model=8, max_epochs=5, callbacks=[SignalHere()]
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(X, y)
        assert any("was interrupted" in str(w.message) for w in caught)
        assert model.n_iter_ == len(model.history_) == 2
        # Python's own handler is back after each fit.
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
