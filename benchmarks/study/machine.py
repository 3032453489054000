"""The machine a run's rows came from, and whether this one rounds as it did.

A fit is bit-reproducible on one machine, but not across CPUs: PyTorch
picks its vectorised kernels by the CPU's instruction set (AVX-512 or AVX2;
``torch.backends.cpu.get_cpu_capability()``) and MKL its own code paths, so
sums round otherwise and a refit differs in the last digits. Over a few
epochs that is about 1e-6 of a curvature; over hundreds of epochs with early
stopping it can move a best epoch, and with it an accuracy by a few test rows.

A run records its CPU (:func:`machine_record`); :func:`platform_case` tells
a replay whether to expect the record's bits (the same CPU capability) or
agreement within the tolerances below, which were measured on an AVX2 CPU
(AMD EPYC) against the replication's rows, which came from another machine:

- :data:`CROSS_CPU_RTOL`: 38 rows of the replication's cheapest table of each
  of its five parts (20 epochs or fewer): the largest relative difference of
  any number was 3.9e-5 (a Gaussian curvature's mean near 0), most below
  1e-6, and every accuracy and text cell was the same;
- :data:`CROSS_CPU_ACCURACY`: the demo's 32 fits (8 seeds of each arm and
  condition, up to 300 epochs with early stopping; :mod:`study.demo`) against
  the replication's rows of the same settings: best epochs moved in 26 of
  32, accuracies (on 300 test rows) by a median of 0.015 and at most 0.083,
  and the demo's test had the replication rows' outcome (holds).

Whether fits can be made identical across x86 CPUs was not settled: the
committed rows were made without pinning the kernels (``ATEN_CPU_CAPABILITY``,
``MKL_CBWR``), so no setting on another machine can give their bits again.
"""

import platform
from pathlib import Path

import torch

__all__ = [
    "CROSS_CPU_ACCURACY",
    "CROSS_CPU_RTOL",
    "OTHER",
    "SAME",
    "UNKNOWN",
    "cpu_capability",
    "cpu_model",
    "machine_record",
    "platform_case",
]

#: Relative tolerance of a replayed number on another CPU (measured largest:
#: 3.9e-5 over 38 rows of 20 epochs or fewer; see the module's text).
CROSS_CPU_RTOL = 1e-4
#: Largest accuracy difference of a demo fit on another CPU (fits of up to
#: 300 epochs; measured largest: 0.083 over the 32 fits of 8 seeds).
CROSS_CPU_ACCURACY = 0.1

#: This CPU has the record's capability: the record's bits are expected.
SAME = "same"
#: It has another: differences in the last digits are expected.
OTHER = "other"
#: The record does not name its CPU (runs before the record held it).
UNKNOWN = "unknown"


def cpu_model():
    """This CPU's model name (Linux's /proc/cpuinfo; elsewhere what
    :func:`platform.processor` says, or the machine type)."""
    info = Path("/proc/cpuinfo")
    if info.is_file():
        for line in info.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    return platform.processor() or platform.machine()


def cpu_capability():
    """The instruction set PyTorch's CPU kernels use here ("AVX512",
    "AVX2", "DEFAULT", ...)."""
    return str(torch.backends.cpu.get_cpu_capability())


def machine_record():
    """What a run records of its CPU: ``cpu`` (the model) and ``cpu
    capability``."""
    return {"cpu": cpu_model(), "cpu capability": cpu_capability()}


def platform_case(record):
    """Whether this machine should give ``record``'s bits: (case, sentence).

    ``case`` is :data:`SAME` where the record's ``cpu capability`` is this
    CPU's, :data:`OTHER` where it is another, :data:`UNKNOWN` where the
    record does not name one; the sentence says so in words.
    """
    here = f"{cpu_model()}, {cpu_capability()}"
    theirs = record.get("cpu capability")
    if theirs is None:
        return UNKNOWN, (
            f"This CPU ({here}) may not be the one that made the rows: their "
            "record does not name its CPU, so the last digits may differ."
        )
    if theirs == cpu_capability():
        return SAME, (
            f"This CPU ({here}) has the record's capability: the same bits "
            "are expected."
        )
    return OTHER, (
        f"This CPU ({here}) is not the record's ({record.get('cpu', 'a CPU')}, "
        f"{theirs}): its kernels round otherwise, so the last digits differ."
    )
