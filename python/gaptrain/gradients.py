"""One all-reduce a step: the gradients, weighted by the samples behind them, and a few numbers
riding along (the step's samples, the regroup flag, the noise measurement, rank 0's batch for the
next step): no extra collective, no extra synchronisation.

The numbers ride in the gradients' buffer when its dtype holds them exactly (float32: integers
to 2^24, float64); with half-precision gradients (bfloat16 holds integers exactly only to 256,
float16 to 2048) they go in a second, float64 all-reduce of a few numbers instead (gloo, which
cannot sum bfloat16, gets bfloat16 gradients as float32, and the numbers with them).
"""
from __future__ import annotations

from typing import Sequence

import torch
import torch.distributed as dist

EXACT_DTYPES = (torch.float32, torch.float64)


def local_sqnorm(params: Sequence[torch.Tensor], samples: int) -> float:
    """The squared norm of this worker's mean gradient; its p.grad holds the sum over its
    ``samples`` samples (each micro-batch's gradient is scaled by its samples)."""
    if samples <= 0:
        return 0.0
    total = sum(float(p.grad.detach().double().pow(2).sum()) for p in params if p.grad is not None)
    return total / samples**2


def all_reduce_step(params: Sequence[torch.Tensor], tail: Sequence[float],
                    divide_by_samples: bool = True) -> tuple[list[float], float]:
    """Sums every worker's gradients and ``tail``, then (``divide_by_samples``) divides each
    gradient by ``tail[0]`` summed (the step's samples). Returns the summed tail and the
    squared norm of the resulting gradient."""
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    device = grads[0].device if grads else torch.device("cpu")
    dtype = grads[0].dtype if grads else torch.float32
    extra = torch.tensor(list(tail), device=device, dtype=torch.float64)
    if dtype == torch.bfloat16 and dist.get_backend() == "gloo":
        dtype = torch.float32  # gloo cannot sum bfloat16
    ride_along = dtype in EXACT_DTYPES
    flat = torch.cat([g.reshape(-1).to(dtype) for g in grads] + ([extra.to(dtype)] if ride_along else []))
    dist.all_reduce(flat)
    if ride_along:
        sums = [float(v) for v in flat[-len(tail):].tolist()]
    else:
        dist.all_reduce(extra)
        sums = [float(v) for v in extra.tolist()]
    total = max(sums[0], 1.0) if divide_by_samples else 1.0
    offset, sqnorm = 0, 0.0
    for p, g in zip(params, grads):
        n = g.numel()
        averaged = flat[offset:offset + n].view_as(g) / total
        sqnorm += float(averaged.double().pow(2).sum())
        if p.grad is None:
            p.grad = averaged.to(p.dtype).clone()
        else:
            p.grad.copy_(averaged)
        offset += n
    return sums, sqnorm
