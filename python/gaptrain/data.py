"""Which samples each worker trains at each step: pure functions of the data position, the
global batch and the group, so that a step is the same whatever the number of workers.

Two orders of the samples of an epoch:

* ``shuffle`` (and ``sequential``): a permutation seeded by ``seed + epoch`` (or 0, 1, ...);
  a step takes the next ``global_batch`` samples of it. The epoch's last step takes what is
  left (as a DataLoader without ``drop_last``).
* ``streams``: the dataset is cut into ``global_batch`` contiguous streams of
  ``len // global_batch`` samples (the rest is left out, as batchify does for a language
  model); step k takes sample k of every stream. A worker holds a contiguous range of streams,
  so its batches continue one another (bptt, a recurrent state carried across windows).

Either way the work done in an epoch is a prefix of its order, and the data position
(``offset``: samples of the epoch done) is all there is to carry across a resize.

A step's samples are split over the W workers as evenly as possible (sizes differ by at most
one, the first ranks take the remainder) in contiguous parts, each cut into the same number of
micro-batches (gradient accumulation) when a part exceeds what a worker holds at once. A worker
left without a sample (an epoch's last step smaller than the group) gets a stand-in sample of
weight 0: its gradient counts for nothing, but it takes part in the step's all-reduce.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import torch

ORDERS = ("shuffle", "sequential", "streams")


@dataclass(frozen=True)
class MicroBatch:
    indices: list[int]  # dataset indices this worker trains now
    weight: int  # samples they stand for: 0 for a stand-in
    step_samples: int  # the step's samples over all workers
    first: bool  # the step's first micro-batch
    last: bool  # the step's last: the gradients are averaged after its backward pass
    streams: tuple[int, ...] = ()  # order "streams": the streams of this worker, in order


def even_part(total: int, rank: int, world_size: int) -> range:
    """Rank's contiguous part of ``range(total)`` split over ``world_size`` as evenly as possible."""
    base, extra = divmod(total, world_size)
    start = rank * base + min(rank, extra)
    return range(start, start + base + (1 if rank < extra else 0))


def micro_steps(step_samples: int, world_size: int, worker_holds: int | None) -> int:
    """The fewest micro-steps that keep every worker's micro-batch within ``worker_holds``."""
    largest = math.ceil(step_samples / world_size)
    return max(1, math.ceil(largest / worker_holds)) if worker_holds else 1


def epoch_samples(order: str, dataset_size: int, global_batch: int) -> int:
    """Samples an epoch trains: all of them, or whole streams."""
    return (dataset_size // global_batch) * global_batch if order == "streams" else dataset_size


def epoch_order(dataset_size: int, seed: int, epoch: int) -> torch.Tensor:
    g = torch.Generator()
    g.manual_seed(seed + epoch)
    return torch.randperm(dataset_size, generator=g)


class StepPlanner:
    """The micro-batches of every step from ``offset`` to the epoch's end, for one rank of a
    group of ``world_size``, at a fixed global batch."""

    def __init__(self, order: str, dataset_size: int, global_batch: int, seed: int, epoch: int,
                 worker_holds: int | None = None) -> None:
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        if dataset_size < 1 or global_batch < 1:
            raise ValueError("the dataset must have samples and the batch size must be positive")
        if order == "streams" and dataset_size < global_batch:
            raise ValueError(f"{global_batch} streams need at least as many samples, the dataset has {dataset_size}")
        self.order, self.dataset_size, self.global_batch = order, dataset_size, global_batch
        self.worker_holds = worker_holds
        self.total = epoch_samples(order, dataset_size, global_batch)
        self._permutation = epoch_order(dataset_size, seed, epoch) if order == "shuffle" else None

    def step_samples(self, offset: int) -> int:
        return min(self.global_batch, self.total - offset)

    def _window(self, offset: int, part: range) -> tuple[list[int], tuple[int, ...]]:
        """The dataset indices of positions ``part`` of the step at ``offset``."""
        if self.order == "streams":
            length, k = self.dataset_size // self.global_batch, offset // self.global_batch
            return [s * length + k for s in part], tuple(part)
        if self._permutation is None:
            return [offset + i for i in part], ()
        return self._permutation[offset + part.start:offset + part.stop].tolist(), ()

    def step(self, offset: int, rank: int, world_size: int) -> list[MicroBatch]:
        """Rank's micro-batches of the step at ``offset``."""
        samples = self.step_samples(offset)
        mine = even_part(samples, rank, world_size)
        count = micro_steps(samples, world_size, self.worker_holds)
        batches = []
        for k in range(count):
            part = even_part(len(mine), k, count)
            indices, streams = self._window(offset, range(mine.start + part.start, mine.start + part.stop))
            weight = len(indices)
            if not indices:  # a stand-in: the step's first sample, weighed 0
                indices, _ = self._window(offset, range(0, 1))
            batches.append(MicroBatch(indices, weight, samples, k == 0, k == count - 1, streams))
        return batches

    def steps(self, offset: int, rank: int, world_size: int) -> Iterator[MicroBatch]:
        """Every micro-batch from ``offset`` to the epoch's end, as long as the group stays."""
        while offset < self.total:
            yield from self.step(offset, rank, world_size)
            offset += self.step_samples(offset)
