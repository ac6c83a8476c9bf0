"""The elastic training loop: data-parallel training that follows the job's nodes in-process.

When gaptrain grows or shrinks the job, the workers that stay keep their processes, their model
and their optimizer: at the end of a step they leave their process group and form the next one
with the new members, rank 0 sends its state (model, optimizer, data position) to everyone, and
the next step deals the next global batch out to the new ranks. No epoch restarts, no sample is
skipped, none is repeated beyond the step in flight when a peer vanished. Only when rank 0's
process is gone (it serves the job's store) do the others restart from the checkpoint.
docs/job-side.md has the design; examples/pytorch-elastic/train_digits.py shows the use.
"""
from __future__ import annotations

import math
import os
import signal
import sys
import time
from datetime import timedelta
from typing import Any, Callable, Iterator, Sequence

import torch
import torch.distributed as dist

from .batching import BatchAgreement, BatchInstruction, StepBatch
from .checkpoint import load_checkpoint, save_checkpoint
from .gradients import all_reduce_step, local_sqnorm
from .jobfile import JobFile, JobView, LaunchContext, LaunchContextError
from .positions import DataPosition, epoch_order, share_of
from .progress import ProgressWriter
from .say import say
from .store import JobStore, Plan, StoreLost

# A worker ends with this status when it must be started again: rank 0's store is gone (all go
# on from the checkpoint), or the others regrouped without it while its node is still the job's
# (it rejoins as a newcomer). gaptrain-launch restarts it at once and does not count it as a
# failure (EX_TEMPFAIL).
EXIT_START_AGAIN = 75


class ElasticLoop:
    """Trains ``model`` with ``optimizer`` over ``dataset_size`` samples for ``epochs`` epochs,
    ``batch_size`` samples per worker and step, on whatever nodes the job has.

    Iterating yields this worker's dataset indices for the next step; call :meth:`step` with
    the step's loss once per item. See :meth:`batches` to get collated tensors instead.

    When the job declared a batch range (``gaptrain submit --batch M0:MAX``), gaptraind chooses
    the global batch with the node count: the loop then ignores ``batch_size``, splits the global
    batch over its workers (with gradient accumulation where a worker's share exceeds what one
    micro-step holds: a step is then several yields) and scales the learning rate by
    ``lr_rule`` ("adascale", "linear", "sqrt" or "none"; batching.py).
    """

    def __init__(
        self,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        dataset_size: int,
        batch_size: int,
        epochs: int,
        checkpoint_dir: str,
        seed: int = 0,
        backend: str | None = None,
        checkpoint_every_s: float = 60.0,
        checkpoint_every_steps: int | None = None,
        progress_every_s: float = 0.25,
        timeout_s: float = 60.0,
        notice_signal: int | None = None,
        context: LaunchContext | None = None,
        lr_rule: str = "adascale",
    ) -> None:
        if dataset_size < 1 or batch_size < 1 or epochs < 0:
            raise ValueError("dataset_size and batch_size must be positive, epochs not negative")
        self.batching = BatchAgreement(batch_size, lr_rule)
        self.model, self.optimizer = model, optimizer
        self.dataset_size, self.batch_size, self.epochs, self.seed = dataset_size, batch_size, epochs, seed
        self.backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
        self.checkpoint_path = os.path.join(checkpoint_dir, "gaptrain-state.pt")
        os.makedirs(checkpoint_dir, exist_ok=True)
        self.checkpoint_every_s, self.timeout_s = checkpoint_every_s, timeout_s
        self.context = context or LaunchContext.from_env()
        # Under torchrun (gaptrain submit --torchrun) the agent regroups by restarting every
        # worker: this loop then only resumes from the checkpoint (docs/job-side.md).
        self.under_torchrun = "TORCHELASTIC_RUN_ID" in os.environ
        self.checkpoint_every_steps = checkpoint_every_steps
        if not self.context.job_file and not self.under_torchrun:
            raise LaunchContextError("GAPTRAIN_JOB_FILE is not set: run this under gaptrain-launch 0.1 or later")
        self.job_file = JobFile(self.context.job_file)
        self.progress = ProgressWriter(self.context.progress_file, progress_every_s)
        self.position = DataPosition()
        self.rank, self.world_size = -1, 0
        self.plan: Plan | None = None
        self._token = 0
        self._store: JobStore | None = None
        self._leaving = False  # SIGTERM: gaptrain-launch stops this worker
        self._notice_signalled = False
        self._noticed: dict[str, float] = {}
        self._last_notice_checkpoint = -1e9
        self._last_checkpoint = time.monotonic()
        self._share_weight = 0
        self._batch_total = 0
        self._micro_left = 0  # micro-steps of this step still to come
        self._local_weight = 0  # this worker's samples in the step
        self._stepped = True
        self._pending_regroup: bool | None = None  # after the step: None, or whether it failed
        self._tokens_taken: dict[str, int] = {}  # rank 0: the newest token of each node planned
        self._generation_seen = -1
        self._generation_since = 0.0
        self._last_membership_check = 0.0
        if not self.under_torchrun:  # under torchrun, SIGTERM ends the worker as torchrun expects
            signal.signal(signal.SIGTERM, self._on_term)
        # The signal gaptrain-launch sends with a notice (GAPTRAIN_NOTICE_SIGNAL; 0: none).
        if notice_signal is None:
            notice_signal = int(os.environ.get("GAPTRAIN_NOTICE_SIGNAL") or signal.SIGUSR1)
        if notice_signal > 0:
            signal.signal(notice_signal, self._on_notice)

    # ----- the public loop -------------------------------------------------------------------

    def __iter__(self) -> Iterator[list[int]]:
        self._start()
        order_epoch, order = -1, None
        while True:
            if self._pending_regroup is not None:
                after_error, self._pending_regroup = self._pending_regroup, None
                self._regroup(after_error)
            if self.position.epoch >= self.epochs:
                break
            if order_epoch != self.position.epoch:
                order_epoch, order = self.position.epoch, epoch_order(self.dataset_size, self.seed, self.position.epoch)
            batch = self._step_batch()
            window = batch.per_worker * self.world_size
            micro = min(batch.micro_steps, math.ceil((self.dataset_size - self.position.offset) / window))
            self._batch_total = self._local_weight = 0
            for k in range(micro):
                share, total = share_of(order, self.position.offset + k * window, batch.per_worker,
                                        self.rank, self.world_size)
                self._batch_total += total
                self._share_weight = share.weight
                self._local_weight += share.weight
                self._micro_left = micro - 1 - k
                self._stepped = False
                yield share.indices
                if not self._stepped:
                    raise RuntimeError("call loop.step(loss) once for every batch the loop yields")
        self._finish()

    def batches(self, dataset: Sequence[Any], collate: Callable[[list[Any]], Any] | None = None) -> Iterator[Any]:
        """Like iterating the loop, but yields ``collate([dataset[i] for i in indices])``."""
        from torch.utils.data import default_collate

        collate = collate or default_collate
        for indices in self:
            yield collate([dataset[i] for i in indices])

    def step(self, loss: torch.Tensor) -> bool:
        """Backward pass, gradients averaged over all workers, optimizer step, progress; at the
        next iteration, the regroup when the job's nodes changed. False when the step was not
        taken (a worker was lost during it): the loop yields its batch again, dealt out anew."""
        self._stepped = True
        # Each micro-batch's mean loss times its samples: the gradients then hold sums over
        # samples, which accumulate across micro-steps and add up across workers.
        (loss * self._share_weight).backward()
        if self._micro_left > 0:
            return True
        try:
            wants_regroup = self._average_gradients()
        except RuntimeError as e:  # a peer vanished mid-collective: redo this step regrouped
            if self.under_torchrun:
                raise  # torchrun restarts every worker; they go on from the checkpoint
            self.optimizer.zero_grad()
            say(f"a worker was lost during step {self.position.step + 1} ({_first_line(e)}): regrouping")
            self._pending_regroup = True
            return False
        self.batching.optimizer_step(self.optimizer)
        self.optimizer.zero_grad()
        self._advance()
        if self.progress.due():
            self.progress.write(self.position, self.world_size, self.rank, self._reported())
        if self.rank == 0:
            self._checkpoint_if_due()
        if wants_regroup:
            self._pending_regroup = False
        return True

    # ----- gradients --------------------------------------------------------------------------

    def _params(self) -> list[torch.Tensor]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def _average_gradients(self) -> bool:
        """The step's one all-reduce (gradients.py): its samples, the count of workers that want
        a regroup after it (rank 0 for new nodes, any worker that leaves), the workers' squared
        gradient norms (the noise measurement) and rank 0's batch for the next step."""
        params = self._params()
        batch = self._step_batch()
        full = self._batch_total == batch.global_batch  # every worker had the same samples
        wanted = self._batch_wanted() if self.rank == 0 else (0, 0, 0.0)
        tail = [float(self._local_weight), float(self._wants_regroup()),
                local_sqnorm(params, self._local_weight) if full else 0.0, *map(float, wanted)]
        sums, sqnorm = all_reduce_step(params, tail)
        if full:
            self.batching.noise.update(sums[2] / self.world_size, sqnorm, self.world_size, self._local_weight)
        self._agree(int(round(sums[3])), int(round(sums[4])), sums[5])
        return sums[1] > 0

    # ----- the batch (batching.py) ---------------------------------------------------------------

    def _instruction(self) -> BatchInstruction | None:
        if self.under_torchrun or not self.context.job_file:
            return None
        return self.job_file.read().batch

    def _step_batch(self) -> StepBatch:
        return self.batching.step_batch(self.world_size)

    def _batch_wanted(self) -> tuple[int, int, float]:
        return self.batching.wanted(self._instruction(), self.world_size)

    def _agree(self, global_batch: int, per_node: int, factor: float) -> None:
        told = self.batching.agree(global_batch, per_node, factor, self.world_size)
        if told and self.rank == 0:
            say(told)

    def _reported(self) -> dict[str, float]:
        return self.batching.reported(self._instruction(), self.world_size)

    def _advance(self) -> None:
        pos = self.position
        pos.offset += self._batch_total
        pos.samples_done += self._batch_total
        pos.step += 1
        if pos.offset >= self.dataset_size:
            pos.epoch, pos.offset = pos.epoch + 1, 0

    # ----- membership -------------------------------------------------------------------------

    def _on_term(self, signum: int, frame: Any) -> None:
        self._leaving = True

    def _on_notice(self, signum: int, frame: Any) -> None:
        self._notice_signalled = True

    def _wants_regroup(self) -> bool:
        if self.under_torchrun:
            if self.context.is_batch_host and self.rank == 0 and self.context.job_file:
                self._handle_notice()
            return False
        if self._leaving:
            assert self._store is not None
            # Marked before this step's all-reduce, which rank 0 cannot finish without us: the
            # plan it posts after the step leaves this worker out.
            self._store.count(self._leaving_key(self.context.node), 1)
            return True
        if not self.context.is_batch_host:
            return False
        self._handle_notice()
        return self._next_members() is not None

    def _next_members(self, force: bool = False) -> list[tuple[str, int]] | None:
        """Rank 0: the members of the next plan when the job's nodes changed enough to regroup
        now, else None. New nodes are taken in once their workers have announced themselves
        (a worker needs seconds to start: the others train on meanwhile), all of them, or those
        ready after 15 s."""
        now = time.monotonic()
        if not force and now - self._last_membership_check < 0.05:
            return None
        self._last_membership_check = now
        view = self.job_file.read()
        if view.generation != self._generation_seen:
            self._generation_seen, self._generation_since = view.generation, now
        assert self.plan is not None and self._store is not None
        current = dict(self.plan.members)
        wanted = [n for n in view.nodes if n not in view.leaving]
        leaving = [n for n in current if n not in wanted or self._store.count(self._leaving_key(n)) > 0]
        added = [n for n in wanted if n not in current]
        # A node that was a member before has an old token: only a newer process is ready.
        ready = {n: t for n in added if (t := self._store.token_of(n)) > self._tokens_taken.get(n, 0)}
        waited = now - self._generation_since > 15.0
        if not force and not leaving and not (added and (len(ready) == len(added) or (ready and waited))):
            return None
        members = [(n, current[n]) for n in wanted if n in current and n not in leaving]
        members += [(n, ready[n]) for n in wanted if n in ready]
        members.sort(key=lambda m: wanted.index(m[0]))
        if not members or members[0][0] != self.context.batch_host:
            members = [(self.context.node, self._token)] + [m for m in members if m[0] != self.context.node]
        return members

    def _leaving_key(self, node: str) -> str:
        assert self.plan is not None
        return f"leaving/{self.plan.number}/{node}"

    def _regroup(self, after_error: bool) -> None:
        """Every member of the current plan calls this at the same step boundary (or after the
        same failed step): rank 0 posts the next plan, all join it."""
        assert self.plan is not None
        try:
            plan = self._next_plan(self.plan, after_error)
        except StoreLost as e:
            self._fall_back(e)
        self._enter(plan, previous=self.plan)

    def _enter(self, plan: Plan, previous: Plan | None) -> None:
        """Joins ``plan``; a plan whose group cannot form (a member vanished meanwhile) is
        followed by another without the vanished."""
        while True:
            try:
                self._join(plan, previous)
                return
            except RuntimeError as e:
                say(f"the group of plan {plan.number} did not form ({_first_line(e)}): regrouping again")
            try:
                plan = self._next_plan(plan, after_error=True)
            except StoreLost as e:
                self._fall_back(e)

    def _next_plan(self, old: Plan, after_error: bool) -> Plan:
        assert self._store is not None
        if after_error and not self.context.is_batch_host:
            self._store.count(f"alive/{old.number}/{self.context.node}", 1)
        if self.context.is_batch_host:
            if self._leaving:  # the batch host goes: the whole job is being stopped
                self._save_checkpoint("the job is being stopped")
                self._post(Plan(old.number + 1, (), done=True))
                self._exit(0, "stopped with the job")
            if after_error:
                self._wait_for_survivors(old)
            self.plan = old  # the leaving/ keys _next_members reads are those of `old`
            members = self._next_members(force=True) or list(old.members)
            self._post(Plan(self._store.latest_plan_number() + 1, tuple(members)))
        # Rank 0 may first sit out a collective's timeout before it sees the failure.
        return self._store.wait_for_plan(old.number, patience_s=2 * self.timeout_s + 10)

    def _wait_for_survivors(self, old: Plan) -> None:
        """Rank 0 after a failed collective: gives the other members a moment to say they are
        still there (each marks alive/K/NODE), so the next plan leaves out only the lost."""
        assert self._store is not None
        deadline = time.monotonic() + 5.0
        others = [n for n, _ in old.members[1:]]
        while time.monotonic() < deadline:
            alive = [n for n in others if self._store.count(f"alive/{old.number}/{n}") > 0]
            if len(alive) == len(others):
                break
            time.sleep(0.05)
        for node in others:
            if self._store.count(f"alive/{old.number}/{node}") == 0:
                self._store.count(f"leaving/{old.number}/{node}", 1)

    def _post(self, plan: Plan) -> None:
        assert self._store is not None
        self._store.post(plan)
        for node, token in plan.members:
            self._tokens_taken[node] = max(token, self._tokens_taken.get(node, 0))

    def _join(self, plan: Plan, previous: Plan | None) -> None:
        """Leaves the current group and becomes a member of ``plan``'s, or ends the process."""
        if plan.done:
            self._exit(0, "the training finished")
        rank = plan.rank_of(self.context.node, self._token)
        if rank is None:
            node = self.context.node
            if self._leaving or node not in self.job_file.read().nodes:
                self._exit(0, f"{node} left the job after step {self.position.step}: given back")
            self._exit(EXIT_START_AGAIN, f"{node} was left out of the group while still the job's: rejoining")
        began = time.monotonic()
        if dist.is_initialized():
            dist.destroy_process_group()
        assert self._store is not None
        dist.init_process_group(self.backend, store=self._store.group_store(plan), rank=rank,
                                world_size=len(plan.members), timeout=timedelta(seconds=self.timeout_s))
        self.plan, self.rank, self.world_size = plan, rank, len(plan.members)
        self._share_state()
        if rank == 0:
            before = len(previous.members) if previous else 0
            what = "started" if previous is None else ("grew" if self.world_size > before else "regrouped")
            say(f"{what} on {','.join(plan.nodes)}: {self.world_size} worker(s), "
                f"step {self.position.step}, epoch {self.position.epoch} "
                f"({time.monotonic() - began:.2f} s)")
        self.progress.write(self.position, self.world_size, self.rank, self._reported())

    def _share_state(self) -> None:
        """Rank 0's model, optimizer and data position to every member: newcomers get them, and
        survivors that failed in different places of a step agree again."""
        for tensor in self.model.state_dict().values():
            dist.broadcast(tensor, 0)
        wanted = self._batch_wanted() if self.rank == 0 else None
        state = [self.optimizer.state_dict(), self.position.as_dict(), wanted] if self.rank == 0 else [None, None, None]
        dist.broadcast_object_list(state, 0)
        if self.rank != 0:
            self.optimizer.load_state_dict(state[0])
            self.position = DataPosition.from_dict(state[1])
        self._agree(*state[2])

    # ----- start, end, checkpoints ------------------------------------------------------------

    def _start(self) -> None:
        if self.under_torchrun:
            self._start_under_torchrun()
            return
        ctx = self.context
        try:
            self._store = JobStore(ctx.rdzv_host, ctx.rdzv_port, ctx.is_batch_host, self.timeout_s)
            self._token = self._store.announce(ctx.node)
            if ctx.is_batch_host:
                self._restore()
                self.plan = Plan(0, ((ctx.node, self._token),))
                members = self._first_members()
                self._post(Plan(1, tuple(members)))
                plan = self._store.plan(1)
            else:
                plan = self._wait_to_be_taken_in()
        except StoreLost as e:
            self._fall_back(e)
        self._enter(plan, previous=None)

    def _start_under_torchrun(self) -> None:
        """torchrun formed the group (env://): rank 0 resumes from the checkpoint, all get its
        state. A resize restarts every worker, and this runs again."""
        began = time.monotonic()
        dist.init_process_group(self.backend, timeout=timedelta(seconds=self.timeout_s))
        self.rank, self.world_size = dist.get_rank(), dist.get_world_size()
        if self.rank == 0:
            self._restore()
        self._share_state()
        say(f"started under torchrun: {self.world_size} worker(s), step {self.position.step} "
            f"({time.monotonic() - began:.2f} s)", self.rank)
        self.progress.write(self.position, self.world_size, self.rank, self._reported())

    def _first_members(self) -> list[tuple[str, int]]:
        """Rank 0 at start: itself and the nodes whose workers are up within a few seconds (at
        least the job's minimum; the others join at a later step)."""
        assert self._store is not None
        deadline = time.monotonic() + 5.0
        while True:
            view = self.job_file.read()
            ready = [(n, t) for n in view.nodes if n != self.context.node and n not in view.leaving
                     and (t := self._store.token_of(n)) > 0]
            members = [(self.context.node, self._token)] + ready
            if len(members) >= len(view.nodes) - len(view.leaving) or (
                    time.monotonic() > deadline and len(members) >= view.min_nodes):
                self._generation_seen = view.generation
                return members
            time.sleep(0.05)

    def _wait_to_be_taken_in(self) -> Plan:
        assert self._store is not None
        seen = 0
        while True:
            if self._leaving:
                self._exit(0, f"{self.context.node} given back before it joined")
            plan = self._store.wait_for_plan(seen, patience_s=24 * 3600)
            if plan.done or plan.rank_of(self.context.node, self._token) is not None:
                return plan
            seen = plan.number

    def _restore(self) -> None:
        state = load_checkpoint(self.checkpoint_path)
        if state is None:
            say("no checkpoint: training from the start")
            return
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.position = DataPosition.from_dict(state["position"])
        say(f"resumed from the checkpoint: step {self.position.step}, epoch {self.position.epoch}, "
            f"{self.position.samples_done} samples done")

    def _save_checkpoint(self, why: str) -> None:
        save_checkpoint(self.checkpoint_path, {
            "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
            "position": self.position.as_dict(), "format": 1})
        self._last_checkpoint = time.monotonic()
        say(f"checkpoint saved at step {self.position.step} ({why})")

    def _checkpoint_if_due(self) -> None:
        every = self.checkpoint_every_steps
        if every and self.position.step % every == 0:
            self._save_checkpoint(f"every {every} steps")
        elif time.monotonic() - self._last_checkpoint >= self.checkpoint_every_s:
            self._save_checkpoint(f"every {self.checkpoint_every_s:g} s")

    def _handle_notice(self) -> None:
        """Rank 0: a node the job will lose soon (the job file's notice, signalled) means
        checkpoint now, so that even a restart loses nothing. The job file and the signal tell
        of the same notice: one checkpoint for both."""
        view: JobView = self.job_file.read()
        fresh = {n: t for n, t in view.notice.items() if self._noticed.get(n) != t}
        signalled, self._notice_signalled = self._notice_signalled, False
        if not fresh and not (signalled and time.monotonic() - self._last_notice_checkpoint > 10.0):
            return
        self._noticed.update(fresh)
        ahead = min((at - time.time() for at in fresh.values()), default=60.0)
        for node, at in sorted(fresh.items()):
            say(f"notice: {node} will be taken in {max(0.0, at - time.time()):.0f} s")
        # A notice at the drain itself (the reclaim's second of grace) leaves no time for a
        # checkpoint, and needs none: the regroup keeps the state in memory.
        if fresh and ahead < 3.0:
            return
        self._save_checkpoint("notice")
        self._last_notice_checkpoint = time.monotonic()

    def _finish(self) -> None:
        self.progress.write(self.position, self.world_size, self.rank, self._reported())
        if self.under_torchrun:
            if self.rank == 0:
                self._save_checkpoint("training finished")
            dist.destroy_process_group()
            say(f"training finished: {self.position.samples_done} samples in {self.position.step} steps", self.rank)
            return
        assert self._store is not None and self.plan is not None
        if self.rank == 0:
            self._save_checkpoint("training finished")
            try:
                self._post(Plan(self.plan.number + 1, (), done=True))
                # Stay (serving the store) until the others have read that it is over.
                deadline = time.monotonic() + 10.0
                while self._store.count("finished") < self.world_size - 1 and time.monotonic() < deadline:
                    time.sleep(0.02)
            except StoreLost:
                pass
        else:
            try:
                self._store.count("finished", 1)
            except StoreLost:
                pass
        if dist.is_initialized():
            dist.destroy_process_group()
        say(f"training finished: {self.position.samples_done} samples in {self.position.step} steps", self.rank)

    def _fall_back(self, error: Exception) -> None:
        say(f"cannot regroup in-process ({error}): restarting from the checkpoint")
        sys.stderr.flush()
        os._exit(EXIT_START_AGAIN)

    def _exit(self, status: int, why: str) -> None:
        """Ends the process at once: the interpreter's teardown (torch's) takes a while, and a
        node given back is wanted within a second."""
        say(why)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
