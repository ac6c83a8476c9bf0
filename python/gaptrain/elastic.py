"""Elastic data-parallel training in the researcher's own loop.

    job = gaptrain.ElasticJob(checkpoint_dir=args.checkpoint)
    job.carry(model=model, optimizer=optimizer, scheduler=scheduler)
    loader = job.loader(train_set, batch_size=64)          # the global batch
    for epoch in job.epochs(args.epochs):
        for x, y in loader:                                 # this worker's share of a step
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()                 # gradients averaged over the workers
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
        total = job.all_reduce([loss_sum, count])           # e.g. over job.shard(val_set, 256)

The loop is the user's: backward, clipping, the optimizer, a GradScaler, a scheduler. The job
averages the gradients of every carried model at the end of each backward pass (as DDP does),
deals the data, regroups the workers between two steps when gaptrain resizes the job, and
carries the registered state into checkpoints and to the workers that join. docs/user.md is the
reference; docs/job-side.md the design.
"""
from __future__ import annotations

import atexit
import os
import sys
import time
import types
from typing import Any, Callable, Iterator, Sequence

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Subset

from . import compat
from .batching import BatchAgreement
from .carried import check_carriable, load_state, state_of
from .checkpoint import load_checkpoint, save_checkpoint
from .data import ORDERS, MicroBatch, StepPlanner, even_part
from .gradients import all_reduce_step, local_sqnorm
from .group import Membership
from .positions import DataPosition
from .safe_files import make_own_directory
from .say import say
from .streams import StreamState


class ElasticJob(Membership):
    """This worker's part in the elastic job: its group, its data and its state.

    ``checkpoint_dir``: a directory every node sees; ``gaptrain-state.pt`` there holds the
    carried state and the data position (every ``checkpoint_every_s``, every
    ``checkpoint_every_steps``, on a notice and at the end), and a job started again resumes
    from it. ``seed``: the shuffled order of each epoch. ``loss_reduction``: "mean" when the
    loss is the mean over the batch (the gradients are averaged over the step's samples, as one
    process training the whole global batch would), "sum" when it is their sum. ``lr_rule``: how
    the learning rate follows gaptraind's global batch when the job has a batch range ("adascale",
    "linear", "sqrt", "none"). ``leave_within_s``: how long a worker whose node is being given
    back may take to finish its step before it abandons it (the others then redo that step).
    ``backend``: "gloo" or "nccl" (nccl when CUDA is available). ``timeout_s``: a collective's
    limit when a peer vanishes without a word. ``progress_every_s``: how often rank 0 reports
    progress to gaptraind. ``notice_signal``: the signal of a notice (GAPTRAIN_NOTICE_SIGNAL,
    SIGUSR1 by default; 0 for none). ``context``: the launch context (from the environment
    gaptrain-launch sets, by default).

    The job joins its group at the first call that needs it (``epochs``, a loader's iteration,
    ``shard``, ``all_reduce``): ``carry`` everything before. ``rank`` and ``world_size`` are
    this worker's place in the group from then on (-1 and 0 before).
    """

    def __init__(self, checkpoint_dir: str, *, seed: int = 0, loss_reduction: str = "mean",
                 lr_rule: str = "adascale", checkpoint_every_s: float = 60.0,
                 checkpoint_every_steps: int | None = None, leave_within_s: float = 0.5,
                 backend: str | None = None, timeout_s: float = 60.0, progress_every_s: float = 0.25,
                 notice_signal: int | None = None, context: Any = None) -> None:
        if loss_reduction not in ("mean", "sum"):
            raise ValueError(f"loss_reduction must be 'mean' or 'sum', not {loss_reduction!r}")
        super().__init__(backend=backend, timeout_s=timeout_s, leave_within_s=leave_within_s,
                         notice_signal=notice_signal, context=context, progress_every_s=progress_every_s)
        self.seed, self.loss_reduction = seed, loss_reduction
        self.batching = BatchAgreement(lr_rule)
        self.checkpoint_path = os.path.join(checkpoint_dir, "gaptrain-state.pt")
        make_own_directory(checkpoint_dir)  # 0700 whatever the umask: save_checkpoint refuses others'
        self.checkpoint_every_s, self.checkpoint_every_steps = checkpoint_every_s, checkpoint_every_steps
        self._last_checkpoint = time.monotonic()
        self._carried: dict[str, Any] = {}
        self._models: list[torch.nn.Module] = []
        self._started = self._finished = self._crashed = False
        # The step in flight (data.py's micro-batches; the flags the backward pass sets).
        self._micro: MicroBatch | None = None
        self._step_weight = 0  # this worker's samples in the step
        self._step_synced = False  # its gradients were averaged at least once
        self._step_broken = False  # a worker left during it: it is abandoned, and redone
        self._regroup_after = False  # a worker asked, in the step's all-reduce, for a regroup
        self._pending_regroup: bool | None = None  # before the next step: None, or after an error
        self._small_state: dict[str, Any] = {}  # what an abandoned step puts back
        self._callback_queued = False
        self._stream_states: list[StreamState] = []
        self._previous_excepthook = sys.excepthook
        sys.excepthook = self._on_uncaught

    # ----- the public calls -------------------------------------------------------------------

    def carry(self, **objects: Any) -> None:
        """Registers state by name: it goes into checkpoints, to the workers that join at a grow,
        and back where it was when a step is abandoned. A ``torch.nn.Module`` is also the model
        whose gradients are averaged over the workers; an optimizer's ``step`` applies the
        learning-rate factor of an adaptive batch and does nothing in an abandoned step. Anything
        with ``state_dict``/``load_state_dict`` (schedulers, GradScaler, ``RandomState``), a
        dict, a list or an object with attributes may be carried."""
        if self._started:
            raise RuntimeError("carry() before the training starts (before epochs() or a loader's iteration)")
        for name, obj in objects.items():
            check_carriable(name, obj)
            if name in self._carried:
                raise ValueError(f"carry(): {name!r} is carried already")
            self._carried[name] = obj
            if isinstance(obj, torch.nn.Module):
                self._models.append(obj)
                for p in obj.parameters():
                    if p.requires_grad:
                        p.register_hook(self._weigh_gradient)
            elif isinstance(obj, torch.optim.Optimizer):
                self._patch_step(obj)

    def loader(self, dataset: Sequence[Any], batch_size: int, *, order: str = "shuffle",
               worker_holds: int | None = None, **dataloader_options: Any) -> "ElasticLoader":
        """The training data: each iteration is one epoch, each item this worker's part of a
        step of ``batch_size`` samples (the global batch, whatever the number of workers).
        ``order``: "shuffle" (a new permutation each epoch), "sequential", or "streams"
        (``batch_size`` contiguous streams, each worker holding whole ones: see data.py).
        ``worker_holds``: the most samples one worker's batch may have; a larger share is cut
        into micro-batches (gradient accumulation: ``job.accumulating`` is then True for all
        but a step's last). Other options go to torch's DataLoader (num_workers, collate_fn,
        pin_memory, ...)."""
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        for refused in ("shuffle", "sampler", "batch_sampler", "drop_last"):
            if refused in dataloader_options:
                raise ValueError(f"loader(): {refused} is the job's to choose; see order= and worker_holds=")
        return ElasticLoader(self, dataset, batch_size, order, worker_holds, dataloader_options)

    def shard(self, dataset: Sequence[Any], batch_size: int, **dataloader_options: Any) -> DataLoader:
        """This worker's contiguous part of ``dataset`` (evaluation): over the group, every
        sample once. ``batch_size`` is per worker. Add up results with :meth:`all_reduce`."""
        self._start()
        part = even_part(len(dataset), self.rank, self.world_size)
        return DataLoader(Subset(dataset, list(part)), batch_size=batch_size, shuffle=False, **dataloader_options)

    def epochs(self, count: int) -> Iterator[int]:
        """The epochs still to train, from the checkpoint's on; the training ends after the
        last. Each epoch's body must go through the training loader once."""
        self._start()
        while self.position.epoch < count:
            epoch = self.position.epoch
            yield epoch
            if self.position.epoch == epoch:
                raise RuntimeError(f"epoch {epoch} ended before its loader did: iterate the job's loader "
                                   "to the end in each epoch (leave the loop with break only to stop)")
        self.finish()

    def all_reduce(self, value: Any, mean: bool = False) -> Any:
        """``value`` (a number, a list of numbers, or a tensor) summed over the workers, or with
        ``mean`` averaged: inside a training step weighted by each worker's samples in the step
        (a loss that is the mean over its batch becomes the loss of the whole global batch),
        elsewhere over the workers. Returns the same kind of value; NaN in a step abandoned
        because a worker left (the step is redone, and what it computed counts for nothing)."""
        self._start()
        if isinstance(value, torch.Tensor):
            tensor = value.detach().to(torch.float64).reshape(-1).cpu()
        else:
            tensor = torch.as_tensor(value, dtype=torch.float64).reshape(-1)
        if self._step_broken:  # redone after the regroup: what it says counts for nothing
            return self._like(value, torch.full_like(tensor, float("nan")))
        weight = float(self._step_weight) if (mean and self._in_step) else 1.0
        device = torch.device("cuda") if self.backend == "nccl" else torch.device("cpu")
        flat = torch.cat([tensor * weight, torch.tensor([weight], dtype=torch.float64)]).to(device)
        try:
            compat.all_reduce(flat)
        except RuntimeError as e:
            if not self._in_step:
                raise
            self._break_step(e)
            return self._like(value, torch.full_like(tensor, float("nan")))
        return self._like(value, (flat[:-1] / flat[-1] if mean else flat[:-1]).cpu())

    @staticmethod
    def _like(value: Any, result: torch.Tensor) -> Any:
        if isinstance(value, torch.Tensor):
            return result.reshape(value.shape).to(value.dtype).to(value.device)
        if isinstance(value, (list, tuple)):
            return [float(v) for v in result.tolist()]
        return float(result[0])

    @property
    def accumulating(self) -> bool:
        """True on a micro-batch that is not its step's last (gradient accumulation): the
        gradients are averaged only after the last one's backward pass, so skip clipping,
        the optimizer's and the scheduler's steps until then."""
        return self._micro is not None and not self._micro.last

    def finish(self) -> None:
        """Ends the training: the last checkpoint, the others told. ``epochs`` calls it after
        the last epoch, and so does the interpreter's exit when the script stops by itself (a
        ``break``); not after an uncaught exception."""
        if self._finished or not self._started:
            return
        self._end_step()
        self._finished = True
        self._leave_job()

    # ----- the step ---------------------------------------------------------------------------

    def _begin_micro(self, micro: MicroBatch) -> None:
        if micro.first:
            self._step_synced = self._step_broken = self._regroup_after = False
            self._step_weight = 0
            self._small_state = {name: state_of(obj) for name, obj in self._carried.items()
                                 if not isinstance(obj, (torch.nn.Module, torch.optim.Optimizer))}
            self._in_step = True
        self._micro = micro
        self._step_weight += micro.weight

    def _end_step(self) -> None:
        """The step in flight is over: count it, or (abandoned) put the small state back."""
        if not self._in_step:
            return
        self._in_step, micro, self._micro = False, self._micro, None
        for stream_state in self._stream_states:
            stream_state.step_ended(completed=not self._step_broken)
        if self._step_broken:
            for name, state in self._small_state.items():
                load_state(self._carried[name], state)
            self._pending_regroup = True
            return
        if not self._step_synced or micro is None or not micro.last:
            raise RuntimeError("a training step ended without its gradients averaged: call loss.backward() "
                               "on every batch of the job's loader (a carried model's parameters in the graph)")
        pos = self.position
        pos.offset += micro.step_samples
        pos.samples_done += micro.step_samples
        pos.step += 1
        if pos.offset >= self._epoch_samples:
            pos.epoch, pos.offset = pos.epoch + 1, 0
        if self.progress.due():
            self._report()
        if self.rank == 0:
            self._checkpoint_if_due()
        if self._regroup_after:
            self._pending_regroup = False

    def _publish_streams(self, in_flight: bool = False) -> None:
        assert self._store is not None
        for stream_state in self._stream_states:
            stream_state.publish(self._store, in_flight)

    def _step_contributed(self) -> bool:
        return self._in_step and self._step_synced and not self._step_broken

    def _regroup_if_due(self) -> None:
        """Before a step: the regroup the last step's all-reduce asked for, or a leave."""
        if self.home_mode and self._leaving and self._pending_regroup is None and self.plan is not None:
            # Told after the step's all-reduce (which carries the regroup flag): leave now, not a
            # step later. The others' next all-reduce breaks, and they redo that step without it.
            self._pending_regroup = False
        if self._pending_regroup is not None:
            after_error, self._pending_regroup = self._pending_regroup, None
            self._regroup(after_error)

    def _weigh_gradient(self, grad: torch.Tensor) -> torch.Tensor | None:
        """A parameter's gradient, as the backward pass computes it, weighted by this worker's
        share of the step: ``n * W / T`` for a mean loss over its ``n`` of the step's ``T``
        samples on ``W`` workers (``W`` for a summed loss; 0 for a stand-in), so that the mean
        over the workers, taken at the end of the step's last backward pass, is the gradient of
        the whole global batch. Micro-batches add up in the gradients before that."""
        micro = self._micro
        if not self._in_step or micro is None:
            return None  # a backward pass outside a training step is the user's own
        if not self._callback_queued:
            self._callback_queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._after_backward)
        return grad * self._gradient_weight(micro.weight)

    def _gradient_weight(self, samples: int) -> float:
        assert self._micro is not None
        if self.loss_reduction == "sum":
            return float(self.world_size) if samples else 0.0
        return samples * self.world_size / self._micro.step_samples

    def _after_backward(self) -> None:
        self._callback_queued = False
        if self._micro is None or not self._micro.last:
            return
        if self._step_broken:
            self._zero_gradients()
            return
        try:
            self._average_gradients()
        except RuntimeError as e:  # a worker left in the middle of the step
            self._break_step(e)

    def _break_step(self, error: BaseException) -> None:
        """Abandons the step: its gradients count for nothing, the optimizer's step does
        nothing, the small state is put back after it, and the step is redone by the new group.
        The group is closed at once, so every member's collective breaks too."""
        if self.under_torchrun:
            raise error
        self._step_broken = True
        self._zero_gradients()
        # Quiet: a worker leaving is the common case (a reclaim); a node that failed is named by
        # rank 0 when it does not answer.
        say(f"a worker left during step {self.position.step + 1}: redoing it after the regroup", self.rank)
        if dist.is_initialized():
            compat.destroy_process_group()

    def _zero_gradients(self) -> None:
        for model in self._models:
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.zero_()

    def _params(self) -> list[torch.Tensor]:
        return [p for model in self._models for p in model.parameters() if p.requires_grad]

    def _average_gradients(self) -> None:
        """The step's all-reduce (gradients.py): its samples, the count of workers that want a
        regroup after it (rank 0 for new nodes, any worker that leaves), the workers' squared
        gradient norms (the noise measurement) and rank 0's batch for the next step."""
        # The parameters this backward pass reached: the same on every worker (as under DDP).
        params = [p for p in self._params() if p.grad is not None]
        assert self._micro is not None
        full = self._micro.step_samples == self._global_batch()
        wanted = self._batch_wanted() if self.rank == 0 else (0, 0, 0.0)
        # This worker's gradients are its mean gradient times W n / T (times W n for a sum).
        scale = self.world_size * self._step_weight / (
            self._micro.step_samples if self.loss_reduction == "mean" else 1)
        tail = [float(self._step_weight), float(self._wants_regroup()),
                local_sqnorm(params, scale) if full else 0.0, *map(float, wanted)]
        sums, sqnorm = all_reduce_step(params, tail)
        if full and self.batching.adaptive:
            self.batching.noise.update(sums[2] / self.world_size, sqnorm, self.world_size,
                                       self._micro.step_samples // self.world_size)
        self._agree(int(round(sums[3])), int(round(sums[4])), sums[5])
        self._step_synced = True
        self._regroup_after = self._regroup_after or sums[1] > 0

    def _patch_step(self, optimizer: torch.optim.Optimizer) -> None:
        """The optimizer's step at the adaptive batch's learning-rate factor (the user's own
        learning rate, a scheduler's included, is put back after it), and none in an abandoned
        step. A bound method, so that schedulers created later still count its steps."""
        original = optimizer.step
        job = self

        def step(opt: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
            # A pause's checkpoint, saved by the leaving thread, must see the optimizer and the
            # model as the step found them: it sets _abandoning unless a step is under way
            # (group.py), and no step starts after that. Not held during the step: an L-BFGS
            # step runs closures, and a worker must be able to leave in the middle of one.
            with job._state_lock:
                if job._step_broken or job._abandoning:
                    return None
                job._optimizer_stepping += 1
            try:
                factor = job.batching.lr_factor
                if factor == 1.0:
                    return original(*args, **kwargs)
                lrs = [group["lr"] for group in opt.param_groups]
                for group, lr in zip(opt.param_groups, lrs):
                    group["lr"] = lr * factor
                try:
                    return original(*args, **kwargs)
                finally:
                    for group, lr in zip(opt.param_groups, lrs):
                        group["lr"] = lr
            finally:
                with job._state_lock:
                    job._optimizer_stepping -= 1

        # A scheduler made before carry() wrapped the step and marked its wrapper (torch 1's
        # _with_counter, torch 2's _wrapped_by_lr_sched); without the mark on the new step it warns
        # that the step "has been overridden after learning rate scheduler initialization". The
        # wrapper still runs (it is `original`), so its count of steps stays right.
        marks = getattr(original, "__func__", original).__dict__
        step.__dict__.update({name: value for name, value in marks.items() if not name.startswith("__")})
        optimizer.step = types.MethodType(step, optimizer)  # type: ignore[method-assign]

    # ----- the batch --------------------------------------------------------------------------

    def _global_batch(self) -> int:
        return self.batching.global_batch(self._loader_batch)

    def _instruction(self) -> Any:
        if self.under_torchrun or not self.context.job_file:
            return None
        return self.job_file.read().batch

    def _batch_wanted(self) -> tuple[int, int, float]:
        if self._order == "streams":  # a stream's length is fixed for the epoch
            return (0, 0, 1.0)
        return self.batching.wanted(self._instruction())

    def _agree(self, global_batch: int, per_node: int, factor: float) -> None:
        told = self.batching.agree(global_batch, per_node, factor, self.world_size)
        if told and self.rank == 0:
            say(told)

    def _reported(self) -> dict[str, float]:
        return self.batching.reported(self._instruction(), self._global_batch())

    # ----- state: the group's, the checkpoint's -----------------------------------------------

    def _start(self) -> None:
        if self._started:
            return
        if not self._models:
            raise RuntimeError("carry(model=...) the model to train before the training starts")
        self._started = True
        atexit.register(self._at_exit)
        self._join_job()

    def _share_state(self) -> None:
        """Rank 0's carried state and data position to every member: newcomers get them, and
        survivors of an abandoned step agree again."""
        for model in self._models:
            for tensor in model.state_dict().values():
                dist.broadcast(tensor, 0)
        payload: list[Any] = [None, None, None]
        if self.rank == 0:
            payload = [self.position.as_dict(), self._batch_wanted(),
                       {name: state_of(obj) for name, obj in self._carried.items()
                        if not isinstance(obj, torch.nn.Module)}]
        dist.broadcast_object_list(payload, 0)
        if self.rank != 0:
            self.position = DataPosition.from_dict(payload[0])
            for name, state in payload[2].items():
                load_state(self._carried[name], state)
        self._agree(*payload[1])

    def _restore(self) -> None:
        state = load_checkpoint(self.checkpoint_path)
        if state is None:
            say("no checkpoint: training from the start")
            return
        carried = state.get("carried")
        if carried is None:  # the first format: the model and the optimizer
            carried = {"model": state["model"], "optimizer": state["optimizer"]}
        missing = [name for name in self._carried if name not in carried]
        if missing:
            raise RuntimeError(f"the checkpoint {self.checkpoint_path} has no {', '.join(missing)}: "
                               "carry the names it was saved with, or start in a new checkpoint directory")
        for name, obj in self._carried.items():
            load_state(obj, carried[name])
        self.position = DataPosition.from_dict(state["position"])
        say(f"resumed from the checkpoint: step {self.position.step}, epoch {self.position.epoch}, "
            f"{self.position.samples_done} samples done")

    def _state_before_step(self) -> tuple[DataPosition, dict[str, Any]]:
        """In the middle of a step, once no carried optimizer steps any more (the models and
        optimizers stay as the step found them): the data position and the other carried state
        the step started from."""
        if self._in_step:
            return DataPosition.from_dict(self.position.as_dict()), self._small_state
        return DataPosition.from_dict(self.position.as_dict()), {
            name: state_of(obj) for name, obj in self._carried.items()
            if not isinstance(obj, (torch.nn.Module, torch.optim.Optimizer))}

    def _save_checkpoint(self, why: str, before_step: tuple[DataPosition, dict[str, Any]] | None = None) -> None:
        """``before_step``: the state a step under way started from (:meth:`_state_before_step`)."""
        carried = {name: obj.state_dict() if hasattr(obj, "state_dict") else state_of(obj)
                   for name, obj in self._carried.items()}
        position = self.position
        if before_step is not None:
            position = before_step[0]
            carried.update(before_step[1])
        save_checkpoint(self.checkpoint_path, {"carried": carried, "position": position.as_dict(),
                                               "format": 2})
        self._last_checkpoint = time.monotonic()
        say(f"checkpoint saved at step {position.step} ({why})")

    def _checkpoint_if_due(self) -> None:
        every = self.checkpoint_every_steps
        if every and self.position.step % every == 0:
            self._save_checkpoint(f"every {every} steps")
        elif time.monotonic() - self._last_checkpoint >= self.checkpoint_every_s:
            self._save_checkpoint(f"every {self.checkpoint_every_s:g} s")

    def _on_uncaught(self, kind: type, error: BaseException, tb: Any) -> None:
        self._crashed = True
        self._previous_excepthook(kind, error, tb)

    def _at_exit(self) -> None:
        if not self._crashed:
            self.finish()

    # What the training loader sets (one drives the steps).
    _loader_batch = 1
    _order = "shuffle"
    _epoch_samples = 1


class ElasticLoader:
    """An epoch of training data (ElasticJob.loader): iterating it yields this worker's batches,
    one step after the other, regrouping between two steps when the job's nodes changed.

    With ``order="streams"``, ``streams`` names the streams of the current batch (its rows, in
    order) and ``streams_changed`` is True on the first batch after they changed (the epoch's
    first, or a regroup dealt the streams out anew); :meth:`stream_state` carries a state kept
    per stream (a recurrent network's hidden state) to whichever worker holds the stream."""

    def __init__(self, job: ElasticJob, dataset: Sequence[Any], batch_size: int, order: str,
                 worker_holds: int | None, options: dict[str, Any]) -> None:
        if batch_size < 1 or (worker_holds is not None and worker_holds < 1):
            raise ValueError("batch_size and worker_holds must be positive")
        self.job, self.dataset, self.batch_size, self.order = job, dataset, batch_size, order
        self.worker_holds, self.options = worker_holds, options
        # order "streams": the streams of the current batch, in order, and whether they differ
        # from the previous batch's (a regroup dealt the streams out anew).
        self.streams: tuple[int, ...] = ()
        self.streams_changed = False

    def stream_state(self, init: Callable[[int], Any], dim: int = 0) -> StreamState:
        """Order "streams": a state kept per stream (a recurrent network's hidden state), carried
        to whichever worker holds the stream: ``get()`` at a step's start gives the rows of this
        batch's streams (``init(n)`` makes a fresh state of n rows; ``dim`` is the rows'
        dimension), ``set(state)`` after the forward pass records what the streams' next
        windows continue from. See streams.py."""
        if self.order != "streams" or self.worker_holds is not None:
            raise ValueError("stream_state() needs order='streams' and no worker_holds "
                             "(a worker's streams in one batch)")
        state = StreamState(self, init, dim)
        self.job._stream_states.append(state)
        return state

    def __len__(self) -> int:
        """Steps in a whole epoch at the current global batch."""
        job = self.job
        planner = StepPlanner(self.order, len(self.dataset), job.batching.global_batch(self.batch_size), 0, 0)
        return -(-planner.total // planner.global_batch)

    def __iter__(self) -> Iterator[Any]:
        job = self.job
        job._start()
        job._loader_batch, job._order = self.batch_size, self.order
        epoch = job.position.epoch
        segment: tuple | None = None
        plan: Iterator[MicroBatch] = iter(())
        data: Iterator[Any] = iter(())
        while True:
            job._end_step()
            if job.position.epoch != epoch:
                # A regroup waits for the next epoch's first step: the code after the loop (an
                # evaluation) may hold collectives every member of this group must join, and a
                # newcomer starts at the next step.
                return
            job._regroup_if_due()
            global_batch = job._global_batch() if self.order != "streams" else self.batch_size
            holds = job.batching.worker_holds(self.worker_holds)
            planner = StepPlanner(self.order, len(self.dataset), global_batch, job.seed, epoch, holds)
            job._epoch_samples = planner.total
            if job.position.offset >= planner.total:  # a checkpoint of an epoch's end
                job.position.epoch, job.position.offset = epoch + 1, 0
                return
            # The DataLoader's workers fetch ahead; after a regroup, a new batch or a redone
            # step, the batches to come differ: a new DataLoader from the position on.
            key = (job.plan.number if job.plan else 0, job.rank, job.world_size, global_batch, holds,
                   job.position.offset)
            if key != segment:
                plan = planner.steps(job.position.offset, job.rank, job.world_size)
                indices = (m.indices for m in planner.steps(job.position.offset, job.rank, job.world_size))
                data = iter(DataLoader(self.dataset, batch_sampler=indices, **self.options))
            while True:
                micro = next(plan)
                batch = next(data)
                job._begin_micro(micro)
                self.streams_changed, self.streams = micro.streams != self.streams, micro.streams
                yield batch
                if micro.last:
                    break
            segment = key[:-1] + (job.position.offset + micro.step_samples,)
