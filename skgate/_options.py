"""skgate's options and defaults that the command line shows: no torch
needed to read them.

Read by :mod:`skgate.nn` and :mod:`skgate.compare` (which document and
export them), by the estimators and their design (:mod:`skgate._design`),
by :mod:`skgate.outputs` and by the command line, which answers ``--help``
and usage errors without importing torch.
"""

# Each is documented where skgate.nn exports it.
NORMS = (None, "layer")
GATE_GAIN = 2.0
HEADS = ("mlp", "mlp-relu", "linear", "norm-linear")
ATTENTIONS = ("softmax", "fixed", "fixed-causal")
LAYERS = ("attention", "pooled", "logits")
EMBEDDINGS = ("linear", "conv")
POSITIONS = ("absolute", "relative", "both")
LR_SCHEDULES = ("constant", "cosine")

#: What the estimators' "auto" parameters become, by the input's form: a
#: table gets the minimal design (today's network and training, bit for
#: bit); series get the strong design, which competes on small series sets
#: (a convolutional input encoding, pre-LN residual blocks with a
#: feed-forward sublayer and several heads, relative position, dropout,
#: warm-up then cosine decay, label smoothing: ConvTran's recipe, Foumani
#: et al. 2024). One table, read by the estimators and documented in the
#: user guide ("Sequences and time series").
DESIGNS = {
    "table": {
        "batch_size": 64,
        "head": "mlp",
        "n_heads": 1,
        "residual": False,
        "norm": None,
        "embedding": "linear",
        "d_ff": None,
        "dropout": 0.0,
        "position": "absolute",
        "lr_schedule": "constant",
        "label_smoothing": 0.0,
    },
    "series": {
        "batch_size": 16,
        "head": "norm-linear",
        "n_heads": 4,
        "residual": True,
        "norm": "layer",
        "embedding": "conv",
        "d_ff": "2 * d_model",
        "dropout": 0.1,
        "position": "both",
        "lr_schedule": "cosine",
        "label_smoothing": 0.1,
    },
}

#: The convolutional encoding of series (``embedding="conv"``): its
#: normalisation, layers and width at full resolution (see
#: :class:`skgate.nn.ConvEmbedding`). Chosen by measurement:
#: benchmarks/results/DIAGNOSIS.md.
SERIES_STEM = {"stem_norm": "batch", "stem_shape": "pooled", "stem_width": None}
#: The residual blocks of series (the strong design's transformer blocks):
#: an output projection after the gate. Chosen by measurement:
#: benchmarks/results/DIAGNOSIS.md.
SERIES_BLOCK = {"projection": True}
#: What series trained with ``lr_schedule="cosine"`` (the series defaults)
#: get besides the schedule, the transformer recipe: each step's gradients
#: clipped to the global norm ``clip_norm`` (None: not clipped); vectors
#: (norms' weights, biases) and positions without weight decay
#: (``decay_exempt``); and ``max_epochs="auto"`` planned for ``auto_steps``
#: optimizer steps, but at most as many epochs as read ``time_points``
#: time points (the fit's series times their padded length, per epoch: a
#: CPU budget for long series), and at least 20. Chosen by measurement:
#: benchmarks/results/DIAGNOSIS.md.
TRANSFORMER_RECIPE = {
    "clip_norm": 1.0,
    "decay_exempt": True,
    "auto_steps": 1000,
    "time_points": 10_000_000,
}

#: The design's parameters that shape training; the others shape the network.
DESIGN_TRAINING_PARAMETERS = ("batch_size", "lr_schedule", "label_smoothing")
DESIGN_NET_PARAMETERS = tuple(
    name for name in DESIGNS["table"] if name not in DESIGN_TRAINING_PARAMETERS
)

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


#: The tasks a comparison (``compare_gates``, a CSV's target) runs as.
TASKS = ("classification", "regression")
#: The files ``compare`` writes into its output folder.
COMPARE_OUTPUTS = (
    "COMPARE.md",
    "compare_scores.csv",
    "compare_tests.csv",
    "fig_compare.png",
)
#: The most ``compare --repeats`` takes: more is a typo, and would run for
#: days (compare_gates' cap on n_repeats and --repeats' both).
MAX_REPEATS = 1000
