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
