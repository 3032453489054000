"""The heads, from the pooled tokens to the outputs: their table of MLP
activations (read by the network, its jets and the training engine), how a
head is built, and its jet."""

from collections.abc import Callable
from types import MappingProxyType
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from ._jets import gelu_jet, layer_norm_jet, linear_jet, relu_jet


class HeadActivation(NamedTuple):
    """An MLP head's activation: its torch module, its jet, and the forward
    pass and backward (``backward(d_out, z)``) the training engine writes
    out."""

    module: type
    jet: Callable
    forward: Callable
    backward: Callable


def _relu_backward(d_u, z):
    return torch.where(z > 0, d_u, 0.0)


#: The MLP heads' activations, by ``head`` name: the one table the network,
#: its jets and the training engine read.
HEAD_ACTIVATIONS = MappingProxyType(
    {
        "mlp": HeadActivation(nn.GELU, gelu_jet, F.gelu, torch.ops.aten.gelu_backward),
        "mlp-relu": HeadActivation(nn.ReLU, relu_jet, F.relu, _relu_backward),
    }
)


def build_head(name, d_model, n_outputs):
    """The head ``name`` (``HEADS``) from the pooled tokens to the outputs."""
    if name in HEAD_ACTIVATIONS:
        activation = HEAD_ACTIVATIONS[name].module()
        return nn.Sequential(
            nn.Linear(d_model, d_model), activation, nn.Linear(d_model, n_outputs)
        )
    if name == "norm-linear":
        # LayerNorm's initial weights are fixed (ones and zeros): no draws.
        return nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, n_outputs))
    return nn.Linear(d_model, n_outputs)


def head_jet(head, name, jet):
    """The jet of ``head`` (built by :func:`build_head` as ``name``) on the
    pooled representation's ``jet``."""
    if isinstance(head, nn.Linear):
        return linear_jet(head, *jet)
    if name == "norm-linear":
        norm, linear = head
        return linear_jet(linear, *layer_norm_jet(norm, *jet))
    first, _, second = head
    activation_jet = HEAD_ACTIVATIONS[name].jet
    return linear_jet(second, *activation_jet(*linear_jet(first, *jet)))
