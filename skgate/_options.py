"""The options of skgate's network, as names: no torch needed to read them.

Read by :mod:`skgate.nn` (which re-exports them) and by the command line,
which must answer ``--help`` without importing torch.
"""

# Each is documented where skgate.nn exports it.
NORMS = (None, "layer")
GATE_GAIN = 2.0
HEADS = ("mlp", "mlp-relu", "linear")
ATTENTIONS = ("softmax", "fixed", "fixed-causal")
LAYERS = ("attention", "pooled", "logits")
