"""The batch a step trains at, when the job declared a batch range (gaptrain submit --batch).

gaptraind chooses the global batch with the node count (goodput: throughput times statistical
efficiency, docs/job-side.md) and tells the job through the job file's ``batch``::

    "batch": {"tuned": 128, "global": 512, "per_node": 128, "accumulation": 1, "lr_gain": 2.7}

The training keeps that global batch whatever the number of workers it has at the moment (a
grow is announced before the newcomer's worker is up): each of W workers takes
``ceil(global / (W * s))`` samples a micro-step, ``s`` micro-steps a step, with ``s`` the fewest
that keep a micro-step within ``per_node``. The learning rate follows the global batch by a
rule: AdaScale's gain (default), linear or square root of global / tuned.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from .noise import GradientNoise

if TYPE_CHECKING:
    import torch

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


@dataclass(frozen=True)
class StepBatch:
    """How one step is made at the current world size."""

    per_worker: int  # samples a worker's micro-step
    micro_steps: int  # gradient accumulation
    world_size: int

    @property
    def global_batch(self) -> int:
        return self.per_worker * self.micro_steps * self.world_size


def split(global_batch: int, world_size: int, per_node: int) -> StepBatch:
    """``global_batch`` over ``world_size`` workers with at most ``per_node`` samples a
    micro-step: the fewest micro-steps, then the smallest share (the step's batch may exceed
    ``global_batch`` by the rounding, at most one sample per worker and micro-step)."""
    micro = max(1, math.ceil(global_batch / (world_size * per_node)))
    return StepBatch(max(1, math.ceil(global_batch / (world_size * micro))), micro, world_size)


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
    the step's all-reduce carried it to all. Without a batch range, ``batch_size`` a worker."""

    def __init__(self, batch_size: int, lr_rule: str) -> None:
        if lr_rule not in LR_RULES:
            raise ValueError(f"lr_rule must be one of {', '.join(LR_RULES)}, not {lr_rule!r}")
        self.batch_size, self.lr_rule = batch_size, lr_rule
        # The global batch and a micro-step's most samples (0, 0: no batch range), and the
        # learning rate's factor.
        self.agreed: tuple[int, int, float] = (0, 0, 1.0)
        self.noise = GradientNoise()
        self._announced: tuple[int, int] | None = None

    def step_batch(self, world_size: int) -> StepBatch:
        global_batch, per_node, _ = self.agreed
        if global_batch <= 0:
            return StepBatch(self.batch_size, 1, world_size)
        return split(global_batch, world_size, per_node)

    def wanted(self, instruction: BatchInstruction | None, world_size: int) -> tuple[int, int, float]:
        """Rank 0: the batch ``instruction`` asks for at ``world_size`` and the learning rate's
        factor there; (0, 0, 1) without one."""
        if instruction is None:
            return (0, 0, 1.0)
        actual = split(instruction.global_batch, world_size, instruction.per_node).global_batch
        gain = self.noise.gain(instruction.tuned, actual) or instruction.lr_gain
        return (instruction.global_batch, instruction.per_node,
                lr_factor(self.lr_rule, instruction.tuned, actual, gain))

    def agree(self, global_batch: int, per_node: int, factor: float, world_size: int) -> str | None:
        """Takes rank 0's choice; returns what to tell the user when the batch changed."""
        self.agreed = (global_batch, per_node, factor if global_batch > 0 else 1.0)
        batch = self.step_batch(world_size)
        told = (batch.global_batch, world_size) if global_batch > 0 else None
        changed, self._announced = told is not None and told != self._announced, told
        if not changed:
            return None
        return (f"batch: global {batch.global_batch} ({batch.per_worker} a worker x {batch.micro_steps} "
                f"micro-step(s) x {world_size} worker(s)), learning rate x {self.agreed[2]:.2f} ({self.lr_rule})")

    def optimizer_step(self, optimizer: "torch.optim.Optimizer") -> None:
        """The optimizer's step at the agreed learning-rate factor; the user's own learning rate
        (a scheduler's included) is put back after it."""
        factor = self.agreed[2]
        lrs = [group["lr"] for group in optimizer.param_groups]
        for group, lr in zip(optimizer.param_groups, lrs):
            group["lr"] = lr * factor
        try:
            optimizer.step()
        finally:
            for group, lr in zip(optimizer.param_groups, lrs):
                group["lr"] = lr

    def reported(self, instruction: BatchInstruction | None, world_size: int) -> dict[str, float]:
        """The progress line's batch and noise measurement, when the job has a batch range."""
        if self.agreed[0] <= 0:
            return {}
        extra: dict[str, float] = {"global_batch": self.step_batch(world_size).global_batch}
        if instruction is not None:
            extra.update(self.noise.reported(instruction.tuned))
        return extra
