"""The one training loop: :class:`BatchedTrainer` trains many networks of one
architecture as one (each with its own rows, order, early stopping and
best epoch), one model as a batch of one; its rows, epochs and threads.
"""

import contextlib
import copy
import math
import signal
import threading
import time
from typing import NamedTuple

import torch

from ..nn._stacked import (
    VECTOR_BLOCK,
    computed_tokens,
    losses_and_gradients,
    validation_logits,
)
from .adamw import BETAS, EPS, fused_adamw


def padded_rows(batch_size):
    """The rows a training batch of ``batch_size`` is computed on: at least
    two, so that no matrix product has a side of 1 (see :func:`_matrices`)."""
    return max(batch_size, 2)


def pad_rows(t, rows, dim=0):
    """``t`` with rows of zeros appended along ``dim`` up to ``rows``."""
    missing = rows - t.shape[dim]
    if missing <= 0:
        return t
    shape = list(t.shape)
    shape[dim] = missing
    return torch.cat([t, t.new_zeros(shape)], dim=dim)


#: A training step of fewer activations than this (models x rows x tokens x
#: d_model) runs on one torch thread. torch's elementwise kernels split no
#: work below 32768 elements (its grain size), and a small step gains
#: little or nothing from a second thread (benchmarks/results/SPEED.md,
#: "The engine's constants": a single fit on one thread and on two), which
#: is then free for another fit. A model's bits do not depend on the number
#: of threads (tested).
ONE_THREAD_WORK = 32768


_threads_lock = threading.Lock()


_threads_state = {"fits": 0, "before": None}


def step_work(n_models, batch_size, tokens, d_model):
    """Activations of one training step of ``n_models`` networks computing
    ``tokens`` tokens of width ``d_model`` for each of ``batch_size`` rows."""
    return n_models * padded_rows(batch_size) * tokens * d_model


@contextlib.contextmanager
def step_threads(work):
    """Train on one torch thread while ``work`` (:func:`step_work`) is
    below :data:`ONE_THREAD_WORK`, then give the caller its number back.
    Fits running at once in threads of one process share the setting: the
    first to start saves the caller's number, the last to end restores it."""
    if work >= ONE_THREAD_WORK:
        yield
        return
    with _threads_lock:
        if _threads_state["fits"] == 0:
            _threads_state["before"] = torch.get_num_threads()
            torch.set_num_threads(1)
        _threads_state["fits"] += 1
    try:
        yield
    finally:
        with _threads_lock:
            _threads_state["fits"] -= 1
            if _threads_state["fits"] == 0:
                torch.set_num_threads(_threads_state["before"])


def epoch_order(n, generator):
    """The order of ``n`` rows in an epoch of shuffled mini-batches: a fresh
    permutation from the fit's own ``generator``."""
    return torch.randperm(n, generator=generator)


def add_batch_loss(total, losses, rows):
    """The running sum of an epoch's training loss: each batch's loss times
    its number of real rows (skorch's train_loss is that sum over the
    epoch's rows; see :func:`epoch_loss`), in float64 as skorch sums it, so
    that finite float32 batch losses never sum to inf."""
    return total + losses.double() * rows


def epoch_loss(total, n):
    """An epoch's training loss from :func:`add_batch_loss`'s sum, n rows."""
    return float(total / n)


def schedule(step, total, warmup):
    """The learning rate's factor at ``step`` (1-based) of ``total``: a
    linear warm-up over the first ``warmup`` share of the steps, then
    cosine decay to 0 at the last step (Loshchilov & Hutter 2017; the
    transformer recipe of Vaswani et al. 2017 with a cosine tail)."""
    ramp = max(1, math.ceil(warmup * total))
    if step <= ramp:
        return step / ramp
    return 0.5 * (1 + math.cos(math.pi * (step - ramp) / max(1, total - ramp)))


def undecayed_weights(net):
    """Names of ``net``'s weights the transformer recipe leaves out of weight
    decay: vectors (norms' weights, biases), positions and relative position
    biases."""
    return {
        name
        for name, weight in net.named_parameters()
        if weight.ndim < 2 or name == "position" or name.endswith("relative_bias")
    }


def clip_gradients(gradients, max_norm):
    """Each model's gradients (stacked, (M, ...) per weight) scaled in place
    so that their global norm is at most ``max_norm``: torch's
    ``clip_grad_norm_`` (the norm of the weights' norms, the factor
    ``max_norm / (norm + 1e-6)`` where below 1), one model per row."""
    norms = torch.stack(
        [torch.linalg.vector_norm(g.flatten(1), dim=1) for g in gradients], dim=1
    )
    total = torch.linalg.vector_norm(norms, dim=1)
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in gradients:
        g.mul_(factor.view(-1, *[1] * (g.ndim - 1)))


def trained_weights(net):
    """Names of ``net``'s weights that training updates, in its order (those
    its output depends on)."""
    unused = net.unused_weights()
    return [n for n, _ in net.named_parameters() if n not in unused]


class Rows(NamedTuple):
    """A model's rows ``X``, targets ``y`` and weights ``w`` (None:
    unweighted), as tensors."""

    X: torch.Tensor
    y: torch.Tensor
    w: torch.Tensor = None


class CtrlC(KeyboardInterrupt):
    """Ctrl-C (SIGINT) while the loop trains in the main thread under
    Python's own handler (:func:`ctrl_c_told_apart`): a KeyboardInterrupt
    told from the one a callback raises to stop training."""


@contextlib.contextmanager
def ctrl_c_told_apart():
    """Within the block, Ctrl-C raises :class:`CtrlC` rather than a plain
    KeyboardInterrupt, where Python's own SIGINT handler is in place (the
    main thread; a command's own handler, or an ignored SIGINT, is left as
    it is), so that a signal landing inside a callback is not taken for the
    callback's stop."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def handler(signum, frame):
        raise CtrlC

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class CallbackStop(Exception):
    """A skorch callback raised KeyboardInterrupt: skorch's way for a callback
    to stop training (EarlyStopping does), raised again as this by
    :class:`~skgate._engine.hooks.NetHooks` so that the loop tells it from
    Ctrl-C."""


class EpochRecord(NamedTuple):
    """A model's epoch as skorch's history keeps it: its batches' losses and
    real rows, and its share of the epoch's seconds (the batch's, divided
    evenly between the models that trained)."""

    losses: list
    sizes: list
    seconds: float


class _Pool:
    """The rows of every model in one table, each distinct tensor once.

    Models that train on the same rows (the folds of a search share one
    tensor across alphas) share them here: model ``m``'s row ``i`` is pool
    row ``offsets[m] + i``, and a batch is one gather of pool rows, so memory
    holds the distinct data once, not once per model.
    """

    def __init__(self, datasets, device):
        columns, first, self.offsets, self.sizes = [], {}, [], []
        total = 0
        for X, y, w in datasets:
            if id(X) not in first:
                first[id(X)] = (total, y, w)
                ones = torch.ones(len(X), dtype=X.dtype)
                columns.append(Rows(X, y, ones if w is None else w))
                total += len(X)
            offset, y0, w0 = first[id(X)]
            if y is not y0 or w is not w0:
                raise ValueError("models sharing rows X must share y and w too")
            self.offsets.append(offset)
            self.sizes.append(len(X))
        self.X = torch.cat([c.X for c in columns]).to(device)
        self.y = torch.cat([c.y for c in columns]).to(device)
        # Weights in the rows' precision (the loss is computed in it).
        self.w = torch.cat([c.w for c in columns]).to(device, self.X.dtype)

    def epoch(self, generators, batch_size):
        """This epoch's pool rows per model, (M, steps * batch_size): each
        model's own permutation of its rows, padded; the mask of real rows."""
        steps = max(math.ceil(n / batch_size) for n in self.sizes)
        index = torch.zeros(len(self.sizes), steps * batch_size, dtype=torch.long)
        mask = torch.zeros(len(self.sizes), steps * batch_size, dtype=self.X.dtype)
        for m, (n, generator) in enumerate(zip(self.sizes, generators, strict=True)):
            index[m, :n] = epoch_order(n, generator) + self.offsets[m]
            mask[m, :n] = 1.0
        return index.to(self.X.device), mask.to(self.X.device), steps

    def batch(self, index):
        """Rows, targets and weights of pool rows ``index`` (M, B)."""
        flat = index.reshape(-1)
        X, y = self.X.index_select(0, flat), self.y.index_select(0, flat)
        w = self.w.index_select(0, flat)
        return (
            X.view(*index.shape, *X.shape[1:]),
            y.view(*index.shape, *y.shape[1:]),
            w.view(index.shape),
        )


def _take(tensors, index):
    """The rows ``index`` (a LongTensor, or None: all) of each tensor: views
    when they are one run of consecutive rows, else copies."""
    if index is None:
        return tensors
    first = int(index[0])
    if int(index[-1]) - first == len(index) - 1:  # sorted and unique: a run
        return [t[first : first + len(index)] for t in tensors]
    return [t.index_select(0, index) for t in tensors]


class BatchedTrainer:
    """Train ``modules`` (initialised, float32, one architecture) together:
    skgate's one training loop, for one model as for a batch.

    ``loss``: a :class:`~skgate._engine.spec.Loss` (the squared error, or
    the cross-entropy with its label smoothing). ``lr``: one learning rate,
    or one per model. ``states``: per model, the AdamW state to continue
    from, ``{weight name: {"step", "exp_avg", "exp_avg_sq"}}`` (None, or
    missing entries: a fresh optimiser).

    Each weight is stacked over the models, (M, *shape); the weights a
    model's output does not use (query and key over copied tokens), and
    those that do not require a gradient, are left out, as a single model's
    optimiser leaves weights without a gradient untouched. A single model's
    stacks are views of its own weights and of its ``states`` (entries made
    where missing), so it trains in place and anything reading its module
    or optimiser state during training (a callback) reads them as they are.

    An AdamW step is torch's own fused kernel, the one
    ``AdamW(fused=True)`` runs for a single model (:func:`fused_adamw`),
    called once per learning rate on every stepping model's weights. The
    kernel treats a tensor's elements by its length (vector body, scalar
    tail), so a weight steps as one stacked tensor only where each model's
    share is whole vector blocks (see :meth:`_update`), else as each
    model's own tensor (a view of the stack): either way a model's update is
    bit for bit the one it would get alone.
    """

    def __init__(
        self,
        modules,
        alphas,
        *,
        loss,
        lr,
        weight_decay,
        batch_size,
        states=None,
        warmup=None,
        clip_norm=None,
        decay_exempt=False,
    ):
        self.net = modules[0]
        #: None, or the global gradient norm each model's step is clipped to.
        self.clip_norm = clip_norm
        #: The weights stepped without weight decay.
        self.undecayed = undecayed_weights(self.net) if decay_exempt else set()
        self.regression = loss.regression
        #: The classification loss's label smoothing (0: none).
        self.label_smoothing = loss.label_smoothing
        #: None: a constant learning rate; a share of the steps: a linear
        #: warm-up over that share, then cosine decay to 0 (:func:`schedule`).
        self.warmup = warmup
        self.totals = None
        self.noise = None
        self.device = next(self.net.parameters()).device
        weights = [dict(module.named_parameters()) for module in modules]
        self.names = [
            n for n in trained_weights(self.net) if weights[0][n].requires_grad
        ]
        states = states or [None] * len(modules)
        if len(modules) == 1:
            self._live(weights[0], states[0])
        else:
            self._stacked(weights, states)
        # Each model's weights and moments: views of the stacks (in place).
        self.views = [
            [
                [state[name][m] for name in self.names]
                for state in (self.params, self.exp_avg, self.exp_avg_sq)
            ]
            for m in range(len(modules))
        ]
        self.alphas = torch.tensor(alphas, dtype=torch.float32, device=self.device)
        #: Whether a weight's per-model share is whole vector blocks (see
        #: _update).
        self.whole_blocks = {
            name: self.params[name][0].numel() % VECTOR_BLOCK == 0
            for name in self.names
        }
        self.lrs = [lr] * len(modules) if isinstance(lr, int | float) else list(lr)
        self.batch_size = batch_size
        #: AdamW's settings but the learning rate (a callback may set them).
        self.adamw = {"weight_decay": weight_decay, "betas": BETAS, "eps": EPS}

    def _live(self, weights, state):
        """One model: the stacks are views of its weights and of ``state``."""
        state = {} if state is None else state
        step = None
        for name in self.names:
            entry = state.setdefault(name, {})
            if not entry:
                entry["step"] = torch.zeros((), dtype=torch.float32, device=self.device)
                entry["exp_avg"] = torch.zeros_like(weights[name])
                entry["exp_avg_sq"] = torch.zeros_like(weights[name])
            # AdamW counts steps per weight; here they count together.
            step = entry["step"] = entry["step"] if step is None else step
        self.states = [state]
        self.params = {n: weights[n].detach().unsqueeze(0) for n in self.names}
        self.exp_avg, self.exp_avg_sq = (
            {n: state[n][key].unsqueeze(0) for n in self.names}
            for key in ("exp_avg", "exp_avg_sq")
        )
        self.steps = [step]
        self.counts = [int(step)]

    def _stacked(self, weights, states):
        """Several models: their weights and AdamW states copied into stacks."""

        def stack(read):
            return {
                name: torch.stack([read(m, name) for m in range(len(weights))])
                for name in self.names
            }

        def moment(key):
            def read(m, name):
                entry = (states[m] or {}).get(name)
                return torch.zeros_like(weights[m][name]) if not entry else entry[key]

            return stack(read)

        self.params = stack(lambda m, name: weights[m][name].detach())
        self.exp_avg, self.exp_avg_sq = moment("exp_avg"), moment("exp_avg_sq")
        self.steps = [
            torch.zeros((), dtype=torch.float32, device=self.device)
            if not (states[m] or {}).get(self.names[0])
            else states[m][self.names[0]]["step"].clone()
            for m in range(len(weights))
        ]
        self.counts = [int(step) for step in self.steps]
        self.states = None

    def _step(self, rows, xb, yb, wb, hooks=None):
        """One AdamW step of the models ``rows`` (a LongTensor; None: every
        model) on their batches; returns their losses and logits."""
        params = _take([self.params[n] for n in self.names], rows)
        (alphas,) = _take([self.alphas], rows)
        noise = None
        if self.noise is not None:
            models = range(len(self.noise)) if rows is None else rows.tolist()
            noise = [self.noise[m] for m in models]
        per_model, gradients, logits = losses_and_gradients(
            self.net,
            self.names,
            params,
            alphas,
            xb,
            yb,
            wb,
            regression=self.regression,
            label_smoothing=self.label_smoothing,
            noise=noise,
        )
        if self.clip_norm is not None:
            clip_gradients(gradients, self.clip_norm)
        lrs, adamw, frozen = self._scheduled(self.lrs), self.adamw, ()
        if hooks is not None:
            # A callback may read or change the gradients and the rates, or
            # freeze weights (as skorch's Freezer: they are not updated).
            hooks.gradients(
                dict(zip(self.names, (g[0] for g in gradients), strict=True))
            )
            adamw, frozen = hooks.rates(), hooks.frozen()
            lrs = self._scheduled([adamw.pop("lr")])
        with torch.no_grad():
            self._update(rows, gradients, lrs, adamw, frozen)
        return per_model, logits

    def _scheduled(self, lrs):
        """Each model's learning rate for its next step: ``lrs`` times the
        schedule's factor at that step (as given without a schedule)."""
        if self.warmup is None or self.totals is None:
            return lrs
        return [
            lr * schedule(count - start + 1, total, self.warmup)
            for lr, count, start, total in zip(
                lrs, self.counts, self.starts, self.totals, strict=False
            )
        ]

    def _update(self, rows, gradients, lrs, adamw, frozen):
        """The AdamW step of the models ``rows`` (None: every model) given
        their gradients (stacked, one per weight name), in place. When every
        model steps, at one learning rate and step count, a weight whose
        per-model share is whole :data:`VECTOR_BLOCK` s steps as one tensor
        (the kernel then treats each model's elements as it would alone);
        the rest step as each model's own tensors."""
        models = range(len(self.views)) if rows is None else rows.tolist()
        torch._foreach_add_([self.steps[m] for m in models], 1)
        for m in models:
            self.counts[m] += 1
        together = (
            rows is None
            and len(models) > 1
            and len({lrs[m] for m in models}) == 1
            and len({self.counts[m] for m in models}) == 1
        )
        by_rate = {}
        decay = adamw["weight_decay"]
        for index, name in enumerate(self.names):
            if name in frozen:
                continue
            wd = 0.0 if name in self.undecayed else decay
            if together and self.whole_blocks[name]:
                by_rate.setdefault((lrs[0], wd), []).append(
                    (
                        self.params[name],
                        gradients[index],
                        self.exp_avg[name],
                        self.exp_avg_sq[name],
                        self.steps[0],
                    )
                )
                continue
            for m, gradient in zip(models, gradients[index].unbind(0), strict=True):
                weights, exp_avg, exp_avg_sq = self.views[m]
                by_rate.setdefault((lrs[m], wd), []).append(
                    (
                        weights[index],
                        gradient,
                        exp_avg[index],
                        exp_avg_sq[index],
                        self.steps[m],
                    )
                )
        for (lr, wd), entries in by_rate.items():
            fused_adamw(entries, lr=lr, **{**adamw, "weight_decay": wd})

    def fit(
        self,
        datasets,
        generators,
        epochs,
        validation=None,
        hooks=None,
        keep_on_interrupt=False,
    ):
        """Train for ``epochs``; ``datasets``: per model ``(X, y, w or None)``.

        ``validation``: per model None or a
        :class:`~skgate._engine.hooks.ValidationScore` (initialised): after each
        epoch the model's float32 outputs on its held-out rows are scored;
        it stops when the score stops improving and ends with the weights of
        its best epoch, as its fit alone would.

        ``hooks`` (one model only): a :class:`~skgate._engine.hooks.NetHooks`,
        told of every epoch, batch, gradient and validation, asked for the
        learning rate of every step; a callback that raises KeyboardInterrupt
        (skorch's way for a callback to stop training, as EarlyStopping does)
        ends training as if the model had stopped (``stopped_by_callback``).
        Ctrl-C (a KeyboardInterrupt raised anywhere else) ends training with
        what trained kept only with ``keep_on_interrupt`` (one model only: an
        estimator's own fit; ``interrupted`` says so after), and never for a
        subclass of KeyboardInterrupt (a command line's interruption, which
        must end the command): otherwise it is raised.

        Returns the per-model training loss of each epoch it trained (M lists),
        the mean of its batches' losses weighted by their rows, as skorch
        reports it.
        """
        if hooks is not None and len(datasets) != 1:
            raise ValueError("hooks observe the training of one model")
        work = (
            step_work(
                len(datasets),
                self.batch_size,
                computed_tokens(self.net.token_dim, self.net.n_features),
                self.net.blocks[0].d_model,
            )
            if self.device.type == "cpu"
            else ONE_THREAD_WORK  # not the CPU: its threads are not ours
        )
        keep = keep_on_interrupt and len(datasets) == 1
        with step_threads(work), ctrl_c_told_apart():
            return self._fit(datasets, generators, epochs, validation, hooks, keep)

    def _fit(self, datasets, generators, epochs, validation, hooks, keep=False):
        M = len(datasets)
        #: Whether Ctrl-C ended the training (what trained kept: ``keep``).
        self.interrupted = False
        #: Whether a callback stopped the training (KeyboardInterrupt).
        self.stopped_by_callback = False
        validation = validation or [None] * M
        pool = self.pool = _Pool(datasets, self.device)
        # Each model's steps in this fit, which the schedule spans (a warm
        # start warms up and decays anew, as its fresh optimizer starts anew).
        self.starts = list(self.counts)
        self.totals = [epochs * math.ceil(n / self.batch_size) for n in pool.sizes]
        if self.net.stochastic:
            # Dropout's numbers: each model's own generator, seeded from its
            # fit's (torch's process-wide one is never used), so that a
            # model draws the same masks alone and beside others.
            self.noise = [
                torch.Generator().manual_seed(
                    int(torch.randint(2**62, (), generator=generator))
                )
                for generator in generators
            ]
        weighted = [w is not None for _, _, w in datasets]
        curves = [[] for _ in datasets]
        #: Each model's epochs, as :class:`EpochRecord` s.
        self.epochs_ = [[] for _ in datasets]
        stopped = [False] * M
        best = {}
        for _ in range(epochs):
            if all(stopped):
                break
            try:
                if hooks is not None:
                    hooks.epoch_begin()
                start, training = time.perf_counter(), stopped.count(False)
                totals, losses, counts = self._epoch(
                    pool, generators, stopped, hooks, weighted
                )
                seconds = (time.perf_counter() - start) / training
                for m, n in enumerate(pool.sizes):
                    if not stopped[m]:
                        curves[m].append(epoch_loss(totals[m], n))
                        taken = counts[m] > 0
                        self.epochs_[m].append(
                            EpochRecord(
                                losses[m][taken].tolist(),
                                [int(c) for c in counts[m][taken].tolist()],
                                seconds,
                            )
                        )
                rows = self._validate(validation, stopped, best, hooks)
                if hooks is not None:
                    hooks.epoch_end(curves[0][-1], rows[0], seconds)
            except CallbackStop:
                stopped[0] = True
                self.stopped_by_callback = True
                self._drop_unfinished_epoch(curves[0], validation[0], hooks)
            except KeyboardInterrupt as interrupt:
                # Ctrl-C is kept (an estimator's own fit); a command's
                # interruption (a subclass of its own) never is.
                if not keep or type(interrupt) not in (KeyboardInterrupt, CtrlC):
                    raise
                stopped[0] = True
                self.interrupted = True
                self._drop_unfinished_epoch(curves[0], validation[0], hooks)
        for m, state in best.items():
            for name in self.names:
                self.params[name][m] = state[name]
        return curves

    def _drop_unfinished_epoch(self, curve, score, hooks):
        """After an interrupt (Ctrl-C, or a callback's stop), keep only the
        epochs whose loss, batches, validation row and score (with held-out
        rows) and history row (with hooks) were all recorded: the signal may
        arrive between any two of them."""
        records = self.epochs_[0]
        finished = min(len(curve), len(records))
        if score is not None:
            finished = min(finished, len(score.rows_), len(score.scores_))
        if hooks is not None:
            finished = min(finished, hooks.finished_epochs())
        del curve[finished:]
        del records[finished:]
        if score is not None:
            del score.rows_[finished:]
            del score.scores_[finished:]
        if hooks is not None:
            hooks.keep_epochs(finished)

    def _epoch(self, pool, generators, stopped, hooks, weighted):
        """One epoch of every model still training; returns each one's sum of
        batch losses (:func:`add_batch_loss`), and per model and step its
        loss and its real rows (0: no step)."""
        M, B = len(pool.sizes), self.batch_size
        index, mask, n_steps = pool.epoch(generators, B)
        # Real rows per model and step, counted once an epoch.
        counts = mask.view(M, n_steps, B).sum(dim=2)
        reals = counts.tolist()
        totals = torch.zeros(M, dtype=torch.float64, device=self.device)
        losses_by_step = torch.zeros(M, n_steps, dtype=torch.float32)
        for step in range(n_steps):
            active = [m for m in range(M) if reals[m][step] and not stopped[m]]
            if not active:  # the models with more steps have stopped
                break
            width = self.computed_rows([reals[m][step] for m in active])
            part = slice(step * B, step * B + width)
            rows = (
                None if len(active) == M else torch.tensor(active, device=self.device)
            )
            picked = index[:, part] if rows is None else index[rows, part]
            xb, yb, wb = pool.batch(picked)
            if any(reals[m][step] < width for m in active):  # padding: weight 0
                real = mask[:, part] if rows is None else mask[rows, part]
                wb = wb * real
            n = int(reals[0][step])
            if hooks is not None:
                batch = _real_rows(xb, yb, wb, n, weighted[0])
                hooks.batch_begin(batch)
            xb, yb, wb = (pad_rows(t, padded_rows(width), dim=1) for t in (xb, yb, wb))
            losses, logits = self._step(rows, xb, yb, wb, hooks)
            if rows is None:
                totals = add_batch_loss(totals, losses, counts[:, step])
                losses_by_step[:, step] = losses.cpu()
            else:
                totals[rows] = add_batch_loss(totals[rows], losses, counts[rows, step])
                losses_by_step[rows.cpu(), step] = losses.cpu()
            if hooks is not None:
                hooks.batch_end(batch, losses[0], logits[0, :n].detach())
        if hooks is not None:
            hooks.trained(n_steps)
        # A model trains every step it has rows for until it stops, which
        # happens between epochs: its real rows per step are the steps it took.
        return totals, losses_by_step, counts.cpu()

    def computed_rows(self, reals):
        """The rows a step computes for models with ``reals`` real rows: the
        batch size, an epoch's last (shorter) batch filled with rows of
        weight 0, so that a model computes alike alone and beside models
        with more rows. (The speed benchmark measures what this costs.)"""
        return self.batch_size

    def _validate(self, validation, stopped, best, hooks):
        """Score the held-out rows of every model still training; mark those
        that stop, keep the weights of each one's best epoch. Each model's
        rows pass alone (:func:`validation_logits`), as in its fit alone.
        Returns each model's history row of the epoch (None: not scored)."""
        rows = [None] * len(validation)
        for m, score in enumerate(validation):
            if score is None or stopped[m]:
                continue
            outputs = self.held_out_outputs(m, score)
            is_best, stop = score.evaluate(outputs.cpu())
            rows[m] = score.rows_[-1]
            if hooks is not None:
                hooks.validated(score.data, outputs, rows[m])
            if is_best:
                best[m] = {n: self.params[n][m].clone() for n in self.names}
            if stop:
                stopped[m] = True
        return rows

    def held_out_outputs(self, m, score):
        """Model ``m``'s outputs on the held-out rows of ``score`` (a
        :class:`~skgate._engine.hooks.ValidationScore`), from its current weights
        (:func:`validation_logits`)."""
        params = {n: self.params[n][m : m + 1] for n in self.names}
        X = score.data.X.to(self.device)
        net = self._with_statistics(m, params)
        return validation_logits(net, params, self.alphas[m], X)

    def _with_statistics(self, m, params):
        """The network whose buffers model ``m``'s evaluation reads: with
        batch norms in its stem, a copy holding model ``m``'s weights and the
        statistics of its training rows as they are now (as its fit sets
        them at the end); else the template itself."""
        embed = getattr(self.net, "embed", None)
        if not getattr(embed, "batch_normed", False):
            return self.net
        net = copy.deepcopy(self.net)
        with torch.no_grad():
            weights = dict(net.named_parameters())
            for name, value in params.items():
                weights[name].copy_(value[0])
        start, n = self.pool.offsets[m], self.pool.sizes[m]
        rows = slice(start, start + n)
        net.set_population_statistics(self.pool.X[rows], self.pool.w[rows])
        return net

    def modules(self, templates):
        """The trained networks: ``templates`` (one per model, e.g. the modules
        passed in, which are changed) given the trained weights, in place.
        (A single model trained in place already.)"""
        if self.states is not None:
            return list(templates)
        with torch.no_grad():
            for m, template in enumerate(templates):
                weights = dict(template.named_parameters())
                for name in self.names:
                    weights[name].copy_(self.params[name][m])
        return list(templates)

    def optimizer_state(self, m):
        """Model ``m``'s AdamW state by weight name, as ``torch.optim.AdamW``
        keeps it (weights it never stepped have none): for a single model
        the ``states`` it trained in, else copies."""
        if self.states is not None:
            return self.states[m]
        return {
            name: {
                "step": self.steps[m].clone(),
                "exp_avg": self.exp_avg[name][m].clone(),
                "exp_avg_sq": self.exp_avg_sq[name][m].clone(),
            }
            for name in self.names
        }


def _real_rows(xb, yb, wb, n, weighted):
    """One model's batch as skorch's callbacks read it: its ``n`` real rows,
    ``(X, y)``, or ``({"X": X, "sample_weight": w}, y)`` when weighted."""
    X, y = xb[0, :n], yb[0, :n]
    return ({"X": X, "sample_weight": wb[0, :n]}, y) if weighted else (X, y)
