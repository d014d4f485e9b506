"""Pin the CPU kernels torch trains with, so that a build computes the same bits anywhere.

ATen and MKL each pick their vectorised kernels by the CPU they find (AVX2, AVX-512 ...),
and the pick changes the last bits of sums: the same checkout trained where torch picked
AVX2 and where it picked AVX-512 gave two models. Pinned to AVX2, every x86-64 CPU that has
it runs the same kernels. Both settings are read when torch loads, so tutor/core/train.py
imports this module before torch; `capability()` says whether the pin took.
"""

from __future__ import annotations

import os

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
os.environ.update(PINNED)


def capability() -> str:
    """The kernels torch runs in this process: 'AVX2' once pinned; less on a CPU without
    AVX2, and the CPU's own pick where torch was loaded before this module."""
    import torch

    return torch.backends.cpu.get_cpu_capability()


def pinned() -> bool:
    return capability() == PINNED["ATEN_CPU_CAPABILITY"].upper()
