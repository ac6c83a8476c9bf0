"""One all-reduce a backward pass: the gradients, weighted by the samples behind them, and a few numbers
riding along (the step's samples, the regroup flag, the noise measurement, rank 0's batch for the
next step): no extra collective, no extra synchronisation.

The numbers ride in the gradients' buffer when its dtype holds them exactly (float32: integers
to 2^24, float64); with half-precision gradients (bfloat16 holds integers exactly only to 256,
float16 to 2048) they go in a second, float64 all-reduce of a few numbers instead. Gloo gets
half-precision gradients as float32, and the numbers with them: it cannot sum bfloat16, nor
float16 in Debian unstable's torch ("Invalid scalar type").
"""
from __future__ import annotations

from typing import Sequence

import torch
import torch.distributed as dist

from . import compat

EXACT_DTYPES = (torch.float32, torch.float64)


def local_sqnorm(params: Sequence[torch.Tensor], scale: float) -> float:
    """The squared norm of this worker's mean gradient, its p.grad being that times ``scale``."""
    if scale <= 0:
        return 0.0
    total = sum(float(p.grad.detach().double().pow(2).sum()) for p in params if p.grad is not None)
    return total / scale**2


def all_reduce_step(params: Sequence[torch.Tensor], tail: Sequence[float]) -> tuple[list[float], float]:
    """Averages the workers' gradients (each already weighted by its share of the step's
    samples: see elastic.py) and sums ``tail``. Returns the summed tail and the squared norm of
    the averaged gradient. A mean is linear: a part of a gradient that is the same on every
    worker (what an earlier backward pass of the step averaged already) stays as it is."""
    world_size = dist.get_world_size()
    grads = [p.grad for p in params]
    device = grads[0].device if grads else torch.device("cpu")
    dtype = grads[0].dtype if grads else torch.float32
    extra = torch.tensor(list(tail), device=device, dtype=torch.float64)
    if dtype in (torch.bfloat16, torch.float16) and dist.get_backend() == "gloo":
        dtype = torch.float32  # gloo (CPU) cannot sum them everywhere
    ride_along = dtype in EXACT_DTYPES
    flat = torch.cat([g.reshape(-1).to(dtype) for g in grads] + ([extra.to(dtype)] if ride_along else []))
    compat.all_reduce(flat)
    if ride_along:
        sums = [float(v) for v in flat[-len(tail):].tolist()]
    else:
        compat.all_reduce(extra)
        sums = [float(v) for v in extra.tolist()]
    offset, sqnorm = 0, 0.0
    for g in grads:
        n = g.numel()
        averaged = flat[offset:offset + n].view_as(g) / world_size
        sqnorm += float(averaged.double().pow(2).sum())
        g.copy_(averaged)
        offset += n
    return sums, sqnorm
