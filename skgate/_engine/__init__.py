"""Training, in one place: every fit of every estimator, CV search and study
batch goes through this package, and only through it.

In the order a fit runs: :mod:`~skgate._engine.plan` settles what a fit
trains on (:class:`~skgate._engine.plan.FitPlan`: its checked parameters,
rows, weights, validation split, epochs and random stream);
:mod:`~skgate._engine.fitting` runs it (:func:`fit`, :func:`fit_together`:
fits batched by architecture) and hands back what it ends with as a
:class:`~skgate._engine.fitting.FitResult`, which the estimator adopts as
its fitted attributes;
:mod:`~skgate._engine.loop` is the one loop
(:class:`~skgate._engine.loop.BatchedTrainer`: many networks trained as one,
each as it would train alone, with the early-stopping rule);
:mod:`~skgate._engine.adamw` is the optimizer step; and
:mod:`~skgate._engine.hooks` is the skorch side (the fitted net, the
validation score, skorch's callbacks called from the loop). The network's
equations over stacked weights, forward and backward, are
:mod:`skgate.nn._stacked`, beside the network's others. Private: the
estimators (:mod:`skgate.estimators`, :mod:`skgate.search`) and
:func:`skgate.parallel.fit_together` are its public face.
"""

from .fitting import fit, fit_together

__all__ = ["fit", "fit_together"]
