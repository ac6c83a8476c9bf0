"""Where the training is in its data, independent of the world size.

Every epoch visits its samples in one order (data.py); a step takes the next global batch of
it and deals it out to the ranks, so the work done is always a prefix of the epoch's order, which
is all the position records. After a resize the next global batch is dealt out to the new ranks:
no sample of an epoch is skipped or repeated, whatever the sizes before and after.
"""
from __future__ import annotations

from dataclasses import dataclass


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
