"""Where the training is in its data, independent of the world size.

Every epoch visits the dataset in one order, a permutation seeded by ``seed + epoch``. A step
takes the next global batch of that order, ``batch_size * world_size`` samples, and deals it
out to the ranks; the work done is therefore always a prefix of the epoch's order, which is all
the position records. After a resize the next global batch is dealt out to the new ranks: no
sample of an epoch is skipped or repeated, whatever the sizes before and after.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class DataPosition:
    epoch: int = 0
    offset: int = 0  # samples of this epoch's order done
    samples_done: int = 0  # over the whole run
    step: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"epoch": self.epoch, "offset": self.offset,
                "samples_done": self.samples_done, "step": self.step}

    @staticmethod
    def from_dict(d: dict[str, int]) -> "DataPosition":
        return DataPosition(int(d["epoch"]), int(d["offset"]), int(d["samples_done"]), int(d["step"]))


def epoch_order(dataset_size: int, seed: int, epoch: int) -> torch.Tensor:
    g = torch.Generator()
    g.manual_seed(seed + epoch)
    return torch.randperm(dataset_size, generator=g)


@dataclass(frozen=True)
class Share:
    """One rank's part of a global batch. ``weight`` is the number of samples it stands for:
    0 for a rank given a stand-in sample because the epoch's last batch has fewer samples than
    there are ranks (its gradient is then multiplied by 0)."""

    indices: list[int]
    weight: int


def share_of(order: torch.Tensor, offset: int, batch_size: int, rank: int, world_size: int) -> tuple[Share, int]:
    """This rank's share of the global batch at ``offset``, and the global batch's size."""
    window = order[offset:offset + batch_size * world_size].tolist()
    mine = window[rank::world_size]
    if mine:
        return Share(mine, len(mine)), len(window)
    return Share(window[:1], 0), len(window)
