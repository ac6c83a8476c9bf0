"""One all-reduce a step: the gradients, weighted by the samples behind them, and a few numbers
riding along (the step's samples, the regroup flag, the noise measurement, rank 0's batch for the
next step): no extra collective, no extra synchronisation."""
from __future__ import annotations

from typing import Sequence

import torch
import torch.distributed as dist


def local_sqnorm(params: Sequence[torch.Tensor], samples: int) -> float:
    """The squared norm of this worker's mean gradient; its p.grad holds the sum over its
    ``samples`` samples (the loop scales each micro-batch's mean loss by its samples)."""
    if samples <= 0:
        return 0.0
    total = sum(float(p.grad.detach().double().pow(2).sum()) for p in params if p.grad is not None)
    return total / samples**2


def all_reduce_step(params: Sequence[torch.Tensor], tail: Sequence[float]) -> tuple[list[float], float]:
    """Sums every worker's gradient sums and ``tail``, then sets each gradient to the sum over
    all samples divided by ``tail[0]`` summed (the step's samples). Returns the summed tail and
    the squared norm of the averaged gradient."""
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    device = grads[0].device if grads else torch.device("cpu")
    dtype = grads[0].dtype if grads else torch.float32
    extra = torch.tensor(list(tail), device=device, dtype=torch.float64).to(dtype)
    flat = torch.cat([g.reshape(-1) for g in grads] + [extra])
    dist.all_reduce(flat)
    sums = [float(v) for v in flat[-len(tail):].tolist()]
    total = max(sums[0], 1.0)
    offset, sqnorm = 0, 0.0
    for p, g in zip(params, grads):
        n = g.numel()
        averaged = flat[offset:offset + n].view_as(g) / total
        sqnorm += float(averaged.double().pow(2).sum())
        if p.grad is None:
            p.grad = averaged.clone()
        else:
            p.grad.copy_(averaged)
        offset += n
    return sums, sqnorm
