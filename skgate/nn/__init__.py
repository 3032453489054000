"""The torch modules of skgate: gated attention (one or several heads), the
network around it, and the registry of gates.

This module knows PyTorch and nothing about scikit-learn. The equations are those
of docs/design.md, section "The model"::

    h0  = W_in x + b                                   token embedding
    a   = softmax(q k^T / sqrt(d)) v,  q, k, v = h W_q, h W_k, h W_v
    out = a                                            gate="none"
    out = silu(a)                                      gate="silu"
    out = a * (1 + alpha * tanh(h W_g + b_g))          gate="multiplicative"
    out = a * sigmoid(h W_g + b_g)                     gate="sigmoid" (per head:
                                                       gate="sigmoid_head")
    h_{l+1} = block_l(h_l),  then mean pooling over tokens and the head.

Each gate is an entry of one registry (:func:`register_gate`): a pointwise
``phi(a)`` or a projected ``a * psi(h W_g + b_g)``, with its activation and
the activation's first two derivatives, from which the forward pass, the
jets and the written-out backward are all built.
"""

from .. import _options
from . import _gates, _heads
from ._gates import (  # noqa: F401  (names the library reads)
    GATE_CHECK_RANGE,
    GATE_FORMS,
    Gate,
    built_in_gate,
    register_gate,
    restore_gate,
    unregister_gate,
)
from ._heads import HeadActivation
from ._layers import STEM_NORMS, STEM_SHAPES, ConvEmbedding, FeedForward, StemNorm
from ._maps import RepresentationMap
from ._modules import GatedAttentionBlock, GatedAttentionNet

# The public constants, documented here (their values are the modules').
#: What ``norm`` may be: None (no normalisation) or "layer" (pre-LayerNorm
#: inside a residual block, ``h + block(LayerNorm(h))``).
NORMS = _options.NORMS
#: The gate projection's initialisation: Xavier-uniform with this gain (see
#: :class:`GatedAttentionBlock`). ``1 / sqrt(3)`` is PyTorch's own ``nn.Linear``
#: default for a square layer, drawn from the same random numbers.
GATE_GAIN = _options.GATE_GAIN
#: What ``head`` may be: "mlp" (one GELU hidden layer of d_model units),
#: "mlp-relu" (the same with ReLU), "linear" (pooled representation straight
#: to the outputs), "norm-linear" (a LayerNorm over the pooled
#: representation, then one linear layer).
HEADS = _options.HEADS
#: How tokens attend: "softmax", softmax(q k^T / sqrt(d)) (the weights move
#: with the input); "fixed", softmax of a learned token-mixing matrix per head,
#: the same for every input (ungated attention is then affine in x);
#: "fixed-causal", the same with each token mixing only itself and earlier ones.
ATTENTIONS = _options.ATTENTIONS
#: How a sequence's tokens are made: "linear" (each patch of time points
#: through one linear map) or "conv" (:class:`ConvEmbedding`: a convolution
#: at full time resolution, a max-pool, a strided convolution over
#: overlapping patches and a convolution at token resolution, each with its
#: norm and GELU).
EMBEDDINGS = _options.EMBEDDINGS
#: How a sequence's tokens know their place: "absolute" (a learned bias per
#: position), "relative" (a learned bias per head and distance in the
#: attention logits), "both".
POSITIONS = _options.POSITIONS
#: What the convolutional encoding's norms may be (:class:`StemNorm`):
#: "batch" (BatchNorm over a training batch's valid time points; a fixed
#: affine map in evaluation), "group" (each series over its channels and
#: time points), "layer" (each time point over its channels).
STEM_NORMS = STEM_NORMS
#: The convolutional encoding's layers: "pooled" (convolution, max-pool,
#: strided patches, convolution at token resolution) or "full" (three
#: convolutions at full resolution, then strided patches).
STEM_SHAPES = STEM_SHAPES
#: Where the representation is read: "attention" (the last block's output at
#: each token), "pooled" (its mean over tokens), "logits" (the head's output).
LAYERS = _options.LAYERS
#: The registered gates by name (a read-only view of the registry, which
#: :func:`register_gate` extends): the five built-in gates first.
GATES = _gates.GATES
#: The built-in gates' names, which :func:`register_gate` will not replace; a
#: model pickles them as names (a user gate travels with its functions).
BUILT_IN_GATES = _gates.BUILT_IN_GATES
#: The MLP heads' activations, by ``head`` name (:class:`HeadActivation`):
#: the one table the network, its jets and the training engine read.
HEAD_ACTIVATIONS = _heads.HEAD_ACTIVATIONS

__all__ = [
    "ConvEmbedding",
    "FeedForward",
    "StemNorm",
    "Gate",
    "GatedAttentionBlock",
    "GatedAttentionNet",
    "HeadActivation",
    "RepresentationMap",
    "register_gate",
    "unregister_gate",
    "GATES",
    "BUILT_IN_GATES",
    "GATE_GAIN",
    "NORMS",
    "ATTENTIONS",
    "EMBEDDINGS",
    "POSITIONS",
    "STEM_NORMS",
    "STEM_SHAPES",
    "HEAD_ACTIVATIONS",
    "HEADS",
    "LAYERS",
]

# Public objects are this package's (their pickles and pages name
# skgate.nn, whichever file holds them); so are the functions a gate's
# pickle calls.
for _public in (
    ConvEmbedding,
    FeedForward,
    StemNorm,
    Gate,
    GatedAttentionBlock,
    GatedAttentionNet,
    HeadActivation,
    RepresentationMap,
    register_gate,
    unregister_gate,
    built_in_gate,
    restore_gate,
):
    _public.__module__ = __name__
del _public
# Models pickled before these functions had their names hold the old ones.
_built_in_gate, _restore_gate = built_in_gate, restore_gate
