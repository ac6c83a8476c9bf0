"""The batch a step trains at, when the job declared a batch range (gaptrain submit --batch).

gaptraind chooses the global batch with the node count (goodput: throughput times statistical
efficiency, docs/job-side.md) and tells the job through the job file's ``batch``::

    "batch": {"tuned": 128, "global": 512, "per_node": 128, "accumulation": 1, "lr_gain": 2.7}

The training keeps that global batch whatever the number of workers it has at the moment (a
grow is announced before the newcomer's worker is up): data.py splits it over the W workers, in
``s`` micro-steps, ``s`` the fewest that keep a micro-step within ``per_node``. The learning rate
follows the global batch by a rule: AdaScale's gain (default), linear or square root of
global / tuned.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from .data import micro_steps
from .noise import GradientNoise

LR_RULES = ("adascale", "linear", "sqrt", "none")


@dataclass(frozen=True)
class BatchInstruction:
    """gaptraind's choice for the job's current node count."""

    tuned: int  # M0: the global batch the hyper-parameters were tuned at
    global_batch: int
    per_node: int  # the most samples a worker's micro-step holds
    accumulation: int
    lr_gain: float  # AdaScale's gain at global_batch, from gaptraind's noise scale

    @staticmethod
    def parse(doc: Mapping[str, Any]) -> "BatchInstruction":
        try:
            b = BatchInstruction(int(doc["tuned"]), int(doc["global"]), int(doc["per_node"]),
                                 int(doc.get("accumulation", 1)), float(doc.get("lr_gain", 1.0)))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the job file's batch needs tuned, global and per_node numbers ({e})") from e
        if min(b.tuned, b.global_batch, b.per_node, b.accumulation) < 1 or not b.lr_gain > 0:
            raise ValueError("the job file's batch numbers must be positive")
        return b


def lr_factor(rule: str, tuned: int, global_batch: int, gain: float) -> float:
    """The learning rate's multiplier at ``global_batch``: ``gain`` (AdaScale's, from the
    gradients' noise), global/tuned (linear), its square root, or 1."""
    s = global_batch / tuned
    if rule == "adascale":
        return gain
    if rule == "linear":
        return s
    if rule == "sqrt":
        return math.sqrt(s)
    return 1.0


class BatchAgreement:
    """The batch every worker trains the next step at: rank 0's choice (from the job file), as
    the step's all-reduce carried it to all. Without a batch range, the user's."""

    def __init__(self, lr_rule: str) -> None:
        if lr_rule not in LR_RULES:
            raise ValueError(f"lr_rule must be one of {', '.join(LR_RULES)}, not {lr_rule!r}")
        self.lr_rule = lr_rule
        # The global batch and a micro-step's most samples (0, 0: no batch range), and the
        # learning rate's factor.
        self.agreed: tuple[int, int, float] = (0, 0, 1.0)
        self.noise = GradientNoise()
        self._announced: tuple[int, int] | None = None

    @property
    def adaptive(self) -> bool:
        return self.agreed[0] > 0

    @property
    def lr_factor(self) -> float:
        return self.agreed[2]

    def global_batch(self, users: int) -> int:
        return self.agreed[0] if self.adaptive else users

    def worker_holds(self, users: int | None) -> int | None:
        return self.agreed[1] if self.adaptive else users

    def wanted(self, instruction: BatchInstruction | None) -> tuple[int, int, float]:
        """Rank 0: the batch ``instruction`` asks for and the learning rate's factor there;
        (0, 0, 1) without one."""
        if instruction is None:
            return (0, 0, 1.0)
        gain = self.noise.gain(instruction.tuned, instruction.global_batch) or instruction.lr_gain
        return (instruction.global_batch, instruction.per_node,
                lr_factor(self.lr_rule, instruction.tuned, instruction.global_batch, gain))

    def agree(self, global_batch: int, per_node: int, factor: float, world_size: int) -> str | None:
        """Takes rank 0's choice; returns what to tell the user when the batch changed."""
        self.agreed = (global_batch, per_node, factor if global_batch > 0 else 1.0)
        told = (global_batch, world_size) if global_batch > 0 else None
        changed, self._announced = told is not None and told != self._announced, told
        if not changed:
            return None
        micro = micro_steps(global_batch, world_size, per_node)
        largest = math.ceil(math.ceil(global_batch / world_size) / micro)
        return (f"batch: global {global_batch} (up to {largest} a worker x {micro} micro-step(s) x "
                f"{world_size} worker(s)), learning rate x {self.agreed[2]:.2f} ({self.lr_rule}): "
                f"gaptraind's choice for the job's nodes (gaptrain submit --batch)")

    def reported(self, instruction: BatchInstruction | None, global_batch: int) -> dict[str, float]:
        """The progress line's batch and noise measurement, when the job has a batch range."""
        if not self.adaptive:
            return {}
        extra: dict[str, float] = {"global_batch": global_batch}
        if instruction is not None:
            extra.update(self.noise.reported(instruction.tuned))
        return extra
