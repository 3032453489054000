"""skgate's options and defaults that the command line shows: no torch
needed to read them.

Read by :mod:`skgate.nn` and :mod:`skgate.compare` (which document and
export them) and by the command line, which answers ``--help`` and usage
errors without importing torch.
"""

# Each is documented where skgate.nn exports it.
NORMS = (None, "layer")
GATE_GAIN = 2.0
HEADS = ("mlp", "mlp-relu", "linear")
ATTENTIONS = ("softmax", "fixed", "fixed-causal")
LAYERS = ("attention", "pooled", "logits")

# The estimators' epochs (their signatures state it too; a test holds them
# equal) and compare_gates' defaults (documented in skgate.compare).
MAX_EPOCHS = "auto"
SCORE_MARGIN = 0.02
TESTS = ("corrected-t", "sign-flip")
COMPARE_CV, COMPARE_REPEATS = 10, 10
MAX_INFERRED_CLASSES = 20


def read_task(values):
    """The task a target's ``values`` (a numpy array) call for, by one rule
    for :func:`skgate.compare.infer_task` and the command line (numpy alone:
    the command refuses a bad CSV before torch or scikit-learn load):
    "regression" for numbers with a fractional part (as scikit-learn's
    ``type_of_target`` reads "continuous"), "classification" for text, bools
    and up to :data:`MAX_INFERRED_CLASSES` whole numbers, and None for more
    whole numbers than that (the caller asks which was meant)."""
    import numpy as np

    if values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            if (values != values.astype(np.int64)).any():
                return "regression"
    if values.dtype.kind in "iuf" and len(np.unique(values)) > MAX_INFERRED_CLASSES:
        return None
    return "classification"
