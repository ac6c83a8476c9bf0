"""The elastic job's group of workers: who trains, and how the group changes in-process.

When gaptrain grows or shrinks the job, the workers that stay keep their processes and their
state: at a step boundary they leave their process group and form the next one with the new
members, and rank 0 sends its state to everyone (elastic.py says what). Only when the job's
store is gone (today's mode: rank 0's process serves it) do the others restart from the
checkpoint. A worker whose node is leaving finishes its step, or abandons it when it would
outlast ``leave_within_s``, and ends with status 0; the others then redo that one step without
it. In the home mode (GAPTRAIN_HOME_MODE=1) no worker is rank 0 for good and a job may pause
with no node at all: home.py has who posts each plan. docs/job-side.md has the design.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from datetime import timedelta
from typing import Any

import torch.distributed as dist

from . import compat
from .home import claim_next, everyone_leaves, group_is_live
from .jobfile import EXIT_LEFT, JobFile, JobView, LaunchContext, LaunchContextError
from .positions import DataPosition
from .progress import ProgressWriter
from .say import say
from .store import JobStore, Plan, StoreLost

# A worker ends with this status when it must be started again: rank 0's store is gone (all go
# on from the checkpoint), or the others regrouped without it while its node is still the job's
# (it rejoins as a newcomer). gaptrain-launch restarts it at once and does not count it as a
# failure (EX_TEMPFAIL).
EXIT_START_AGAIN = 75


class Membership:
    """The group part of :class:`gaptrain.ElasticJob`: the store, the plans, regroups, leaving,
    notices and the end. The subclass provides ``_share_state``, ``_restore``,
    ``_save_checkpoint``, ``_batch_wanted`` and ``_reported``."""

    def __init__(self, *, backend: str | None, timeout_s: float, leave_within_s: float,
                 notice_signal: int | None, context: LaunchContext | None,
                 progress_every_s: float) -> None:
        import torch

        self.backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
        self.timeout_s, self.leave_within_s = timeout_s, leave_within_s
        self.context = context or LaunchContext.from_env()
        # Under torchrun (gaptrain submit --torchrun) the agent regroups by restarting every
        # worker: the job then only resumes from the checkpoint (docs/job-side.md).
        self.under_torchrun = "TORCHELASTIC_RUN_ID" in os.environ
        if not self.context.job_file and not self.under_torchrun:
            raise LaunchContextError("GAPTRAIN_JOB_FILE is not set: run this under gaptrain-launch 0.1 or later")
        self.job_file = JobFile(self.context.job_file)
        self.progress = ProgressWriter(self.context.progress_file, progress_every_s)
        self.position = DataPosition()
        self.rank, self.world_size = -1, 0
        self.plan: Plan | None = None
        self._token = 0
        self._store: JobStore | None = None
        self._leaving = False  # this worker's node is being given back
        self._leaving_since: float | None = None
        self._in_step = False  # between a step's first batch and its end
        self._notice_signalled = False
        self._noticed: dict[str, float] = {}
        self._last_notice_checkpoint = -1e9
        self.home_mode = self.context.home_mode
        # The leaving thread and the main thread may both end the process; the first to start
        # leaving finishes (a pause's checkpoint and plan included) before the other may exit.
        self._leave_lock = threading.RLock()
        # Home mode: a pause's checkpoint from the leaving thread sees no carried optimizer
        # step half-way: once _abandoning is set (under the lock, while none is under way) no
        # carried optimizer steps in this process.
        self._state_lock = threading.Lock()
        self._abandoning = False
        self._optimizer_stepping = 0  # carried optimizers' steps under way (elastic.py)
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

    # ----- the subclass's part ----------------------------------------------------------------

    def _share_state(self) -> None:
        raise NotImplementedError

    def _restore(self) -> None:
        raise NotImplementedError

    def _save_checkpoint(self, why: str, before_step: Any = None) -> None:
        raise NotImplementedError

    def _state_before_step(self) -> Any:
        raise NotImplementedError

    def _batch_wanted(self) -> tuple[int, int, float]:
        raise NotImplementedError

    def _reported(self) -> dict[str, float]:
        raise NotImplementedError

    def _publish_streams(self, in_flight: bool = False) -> None:
        """Before a regroup: the state kept per stream, for the streams' next holders (with
        ``in_flight``, also as it is after the step under way)."""

    def _step_contributed(self) -> bool:
        """Whether this worker's gradients of the step under way were averaged already: the
        others may then finish the step with its samples."""
        return False

    def _report(self) -> None:
        self.progress.write(self.position, self.world_size, self.rank, self._reported())

    # ----- leaving ----------------------------------------------------------------------------

    def _on_term(self, signum: int, frame: Any) -> None:
        self._start_leaving()

    def _on_notice(self, signum: int, frame: Any) -> None:
        self._notice_signalled = True

    def _start_leaving(self) -> None:
        if self._leaving_since is None:
            self._leaving_since = time.monotonic()
        self._leaving = True

    def _watch_leaving(self) -> None:
        """A thread: notices this worker's node leaving the job (the job file, or SIGTERM) while
        the main thread is inside a step (a forward pass, a collective), and abandons the step
        when it does not end within ``leave_within_s``: the node is wanted back within about a
        second. The others see the group break at once and redo the step without this worker."""
        node = self.context.node
        if self.context.is_batch_host:
            return  # never taken from a running job: it leaves only with the whole job, after a checkpoint
        while True:
            time.sleep(0.02)
            try:
                view = self.job_file.read()
            except (OSError, ValueError):
                continue  # the launcher renames a new file in: read it at the next look
            if node in view.leaving or node not in view.nodes:
                self._start_leaving()
            since = self._leaving_since
            if since is not None and self._in_step and time.monotonic() - since >= self.leave_within_s:
                self._abandon_and_leave()

    def _abandon_and_leave(self) -> None:
        """Leaves in the middle of a step. The mark in the store tells rank 0 that this worker
        is gone, so it does not wait for it. Whether the step counts is for the others to find,
        not for this worker to guess: when every collective of the step is behind them they
        finish it with this worker's samples (its gradients were averaged in), when one is still
        ahead (an L-BFGS step's next closure, a loss averaged after the backward pass) it breaks
        for them and they redo the step. Its stream states are published for both cases.

        Home mode: when every member leaves, the last to mark saves the checkpoint (the state
        the step started from: no carried optimizer steps in this process any more) and posts
        the pause. A worker past its gradients' all-reduce waits up to ``leave_within_s`` more
        for the step's end, where the main thread leaves with the step counted."""
        node = self.context.node
        before_step = None
        with self._state_lock:
            contributed = self._step_contributed()
            # An optimizer step under way: the step's gradients were averaged before it.
            past_its_collectives = contributed or self._optimizer_stepping > 0
            if self.home_mode and not past_its_collectives:
                self._abandoning = True
                before_step = self._state_before_step()
        since = self._leaving_since
        waited_s = time.monotonic() - since if since is not None else 0.0
        if self.home_mode and past_its_collectives and waited_s < 2 * self.leave_within_s:
            return  # only local work is left of the step: its end is near
        with self._leave_lock:
            try:
                if self._store is not None and self.plan is not None:
                    self._publish_streams(in_flight=contributed)
                    self._store.count(self._leaving_key(node), 1)
                    if self.home_mode:
                        self._pause_if_last(self.plan, before_step, fresh=before_step is not None)
            except StoreLost:
                pass
            except Exception as e:  # noqa: B902: the node is wanted back whatever failed; said, not raised
                say(f"{node} could not save the pause's checkpoint ({first_line(e)}): the next nodes "
                    "resume from the one before")
            outcome = ("its gradients are in: the others finish that step, or redo it if it needed this worker "
                       "again" if contributed else "the others redo that step")
            self._exit(self._left_status(),
                       f"{node} left the job during step {self.position.step + 1}: given back ({outcome})")

    def _pause_if_last(self, plan: Plan, before_step: Any = None, fresh: bool = True) -> None:
        """Home mode, a member of ``plan`` that leaves (it marked so): when every member leaves
        and this one wins the claim, it saves the checkpoint (``before_step``: the state the
        step under way started from) and posts the pause. Not ``fresh``: a step past its
        gradients' all-reduce that did not end within the wait, whose state may be neither the
        one before it nor the one after (an optimizer step taken, a scheduler's not yet): no
        checkpoint, the next nodes resume from the one before."""
        assert self._store is not None
        view = self.job_file.read()
        if not everyone_leaves(self._store, view, plan):
            return
        if not claim_next(self._store, plan.number, self.context.node, self._token, view):
            return
        if fresh:
            self._save_checkpoint("every node leaves: the job pauses", before_step)
        else:
            say(f"every node leaves in the middle of step {self.position.step + 1}, past its gradients' "
                "all-reduce: the job pauses without a checkpoint of it (the next nodes resume from the one before)")
        self._store.post(Plan(plan.number + 1, (), paused=True))
        say("paused: the next nodes resume from the checkpoint")

    # ----- membership -------------------------------------------------------------------------

    def _wants_regroup(self) -> bool:
        """Whether this worker wants a regroup after the current step (it rides on the step's
        all-reduce, so all agree at the same step)."""
        if self.under_torchrun:
            if (self.context.is_batch_host or self.home_mode) and self.rank == 0 and self.context.job_file:
                self._handle_notice()
            return False
        if self._leaving:
            assert self._store is not None
            # Marked before this step's all-reduce, which rank 0 cannot finish without us: the
            # plan it posts after the step leaves this worker out.
            self._store.count(self._leaving_key(self.context.node), 1)
            return True
        if not self._watches_membership():
            return False
        self._handle_notice()
        return self._next_members() is not None

    def _watches_membership(self) -> bool:
        """Whether this worker looks for new and leaving nodes at each step: the batch host's
        (today's mode), rank 0 of the current plan (home mode)."""
        return self.rank == 0 if self.home_mode else self.context.is_batch_host

    def _next_members(self, force: bool = False) -> list[tuple[str, int]] | None:
        """The members of the next plan when the job's nodes changed enough to regroup now,
        else None (rank 0 at a step; with ``force``, the poster of the next plan). New nodes are
        taken in once their workers have announced themselves (a worker needs seconds to start:
        the others train on meanwhile), all of them, or those ready after 15 s. Home mode: the
        survivors first (rank 0 sends its state), then the newcomers; none at all: a pause."""
        now = time.monotonic()
        if not force and now - self._last_membership_check < 0.05:
            return None
        self._last_membership_check = now
        view = self.job_file.read()
        if not view.nodes and not self.home_mode:  # the whole job is being stopped: SIGTERM follows
            return None
        if view.generation != self._generation_seen:
            self._generation_seen, self._generation_since = view.generation, now
        assert self.plan is not None and self._store is not None
        current = dict(self.plan.members)
        wanted = [n for n in view.nodes if n not in view.leaving]
        leaving = [n for n in current if n not in wanted or self._store.count(self._leaving_key(n)) > 0]
        added = [n for n in wanted if n not in current]
        # A node that was a member before has an old token: only a newer process is ready.
        ready = {n: t for n in added if (t := self._store.token_of(n)) > self._store.taken(n)}
        waited = now - self._generation_since > 15.0
        if not force and not leaving and not (added and (len(ready) == len(added) or (ready and waited))):
            return None
        members = [(n, current[n]) for n in wanted if n in current and n not in leaving]
        members += [(n, ready[n]) for n in wanted if n in ready]
        if self.home_mode:
            return members
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
            self._publish_streams()
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
                say(f"the group of plan {plan.number} did not form ({first_line(e)}): regrouping again")
            try:
                plan = self._next_plan(plan, after_error=True)
            except StoreLost as e:
                self._fall_back(e)

    def _next_plan(self, old: Plan, after_error: bool) -> Plan:
        assert self._store is not None
        if self.home_mode:
            return self._next_plan_home(old, after_error)
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

    def _next_plan_home(self, old: Plan, after_error: bool) -> Plan:
        """Home mode, every member of ``old`` at the same boundary (or after the same broken
        step): each says whether it stays or leaves; a leaver is done then (the last of all
        saves the checkpoint and posts the pause); of those that stay, the one that wins the
        claim posts the next plan (home.py)."""
        assert self._store is not None
        node = self.context.node
        self._store.count(f"{'leaving' if self._leaving else 'alive'}/{old.number}/{node}", 1)
        # The others may first sit out a collective's timeout before they see the failure.
        deadline = time.monotonic() + 2 * self.timeout_s + 10
        while True:
            latest = self._store.latest_plan_number()
            if latest > old.number:
                return self._store.plan(latest)
            if self._leaving:
                with self._leave_lock:
                    self._pause_if_last(old)
                    self._exit(self._left_status(), f"{node} left the job after step {self.position.step}: given back")
            if claim_next(self._store, old.number, node, self._token, self.job_file.read()):
                if after_error:
                    self._wait_for_survivors(old)
                self.plan = old  # the leaving/ keys _next_members reads are those of `old`
                members = self._next_members(force=True) or []
                # Nobody stays (this worker's node is leaving too): newcomers, if any, hold no
                # state to send as rank 0; they resume from the pause's checkpoint instead.
                if not any(member in old.members for member in members):
                    with self._leave_lock:
                        self._save_checkpoint("every node leaves: the job pauses")
                        self._post(Plan(old.number + 1, (), paused=True))
                        self._exit(self._left_status(), f"paused after step {self.position.step}: {node} given "
                                   "back, the next nodes resume from the checkpoint")
                self._post(Plan(old.number + 1, tuple(members)))
                return self._store.plan(old.number + 1)
            if time.monotonic() > deadline:
                raise StoreLost(f"no plan after plan {old.number} within {2 * self.timeout_s + 10:.0f} s")
            time.sleep(0.02)

    def _wait_for_survivors(self, old: Plan) -> None:
        """Rank 0 after a broken step: each other member says it is still there (alive/K/NODE)
        as soon as the step broke for it too, or that it left (leaving/K/NODE), or its node is no
        longer the job's. Only a member that vanished without a word (its node failed) is waited
        for, up to 5 s, and then left out."""
        assert self._store is not None
        deadline = time.monotonic() + 5.0
        others = [n for n, _ in old.members if n != self.context.node]

        def accounted(node: str, view: JobView) -> bool:
            return (self._store.count(f"alive/{old.number}/{node}") > 0
                    or self._store.count(f"leaving/{old.number}/{node}") > 0
                    or node not in view.nodes or node in view.leaving)

        pending = others
        while pending and time.monotonic() < deadline:
            time.sleep(0.01)
            view = self.job_file.read()
            pending = [n for n in pending if not accounted(n, view)]
        for node in pending:
            say(f"{node} did not answer within 5 s after step {self.position.step + 1} broke: going on without it")
        for node in others:
            if self._store.count(f"alive/{old.number}/{node}") == 0:
                self._store.count(f"leaving/{old.number}/{node}", 1)

    def _post(self, plan: Plan) -> None:
        assert self._store is not None
        self._store.post(plan)

    def _join(self, plan: Plan, previous: Plan | None) -> None:
        """Leaves the current group and becomes a member of ``plan``'s, or ends the process."""
        if plan.done:
            self._exit(0, "the training finished")
        rank = plan.rank_of(self.context.node, self._token)
        if rank is None:
            node = self.context.node
            if self._leaving or node not in self.job_file.read().nodes:
                self._exit(self._left_status(), f"{node} left the job after step {self.position.step}: given back")
            self._exit(EXIT_START_AGAIN, f"{node} was left out of the group while still the job's: rejoining")
        began = time.monotonic()
        if dist.is_initialized():
            compat.destroy_process_group()
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
        self._report()

    # ----- start and end ----------------------------------------------------------------------

    def _join_job(self) -> None:
        if self.under_torchrun:
            self._start_under_torchrun()
            return
        ctx = self.context
        secret = ctx.require_store_secret()
        try:
            self._store = JobStore(ctx.rdzv_host, ctx.rdzv_port, ctx.is_batch_host, self.timeout_s, secret)
            self._token = self._store.announce(ctx.node)
            threading.Thread(target=self._watch_leaving, name="gaptrain-leaving", daemon=True).start()
            if ctx.is_batch_host:
                self._restore()
                self.plan = Plan(0, ((ctx.node, self._token),))
                members = self._first_members()
                self._post(Plan(1, tuple(members)))
                plan = self._store.plan(1)
            elif self.home_mode:
                plan = self._start_or_wait()
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
        self._report()

    def _start_or_wait(self) -> Plan:
        """Home mode, a worker that just started: the first plan that names it. When no group
        is live (no plan yet, the job paused, or every member of the newest plan gone), one
        worker wins the claim to start: it restores from the checkpoint and posts the first plan
        with itself as rank 0 (home.py); the others wait to be taken in."""
        assert self._store is not None
        node = self.context.node
        while True:
            if self._leaving:
                self._exit(self._left_status(), f"{node} given back before it joined")
            latest = self._store.latest_plan_number()
            plan = self._store.plan(latest) if latest else None
            if plan is not None and (plan.done or plan.rank_of(node, self._token) is not None):
                return plan
            view = self.job_file.read()
            if (plan is None or not group_is_live(self._store, view, plan)) and claim_next(
                    self._store, latest, node, self._token, view):
                self._restore()
                self.plan = Plan(latest, ((node, self._token),))
                self._post(Plan(latest + 1, tuple(self._first_members())))
                return self._store.plan(latest + 1)
            time.sleep(0.02)

    def _first_members(self) -> list[tuple[str, int]]:
        """Rank 0 at start: itself and the nodes whose workers are up within a few seconds (at
        least the job's minimum; the others join at a later step)."""
        assert self._store is not None
        deadline = time.monotonic() + 5.0
        while True:
            view = self.job_file.read()
            ready = [(n, t) for n in view.nodes if n != self.context.node and n not in view.leaving
                     and (t := self._store.token_of(n)) > self._store.taken(n)]
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
                self._exit(self._left_status(), f"{self.context.node} given back before it joined")
            plan = self._store.wait_for_plan(seen, patience_s=24 * 3600)
            if plan.done or plan.rank_of(self.context.node, self._token) is not None:
                return plan
            seen = plan.number

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

    def _leave_job(self) -> None:
        """The end of the training: rank 0 checkpoints and tells everyone, the others wait
        for that."""
        self._report()
        if self.under_torchrun:
            if self.rank == 0:
                self._save_checkpoint("training finished")
            compat.destroy_process_group()
            say(f"training finished: {self.position.samples_done} samples in {self.position.step} steps", self.rank)
            return
        assert self._store is not None and self.plan is not None
        if self.rank == 0:
            self._save_checkpoint("training finished")
            try:
                # Home mode: the store host serves the store, nobody need stay for it.
                if not self.home_mode:
                    self._post(Plan(self.plan.number + 1, (), done=True))
                elif claim_next(self._store, self.plan.number, self.context.node, self._token,
                                self.job_file.read()):
                    self._post(Plan(self.plan.number + 1, (), done=True))
                # Stay (serving the store) until the others have read that it is over.
                deadline = time.monotonic() + (0.0 if self.home_mode else 10.0)
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
            compat.destroy_process_group()
        say(f"training finished: {self.position.samples_done} samples in {self.position.step} steps", self.rank)

    def _fall_back(self, error: Exception) -> None:
        if self._leaving:
            # Told to leave (SIGTERM) and the store gone with the batch host: the whole job is
            # being stopped, and rank 0 saved the checkpoint it resumes from.
            self._exit(self._left_status(), "stopped with the job")
        say(f"cannot regroup in-process ({error}): restarting from the checkpoint")
        sys.stderr.flush()
        os._exit(EXIT_START_AGAIN)

    def _left_status(self) -> int:
        """The exit status of a worker that leaves because its node goes."""
        return EXIT_LEFT if self.home_mode else 0

    def _exit(self, status: int, why: str) -> None:
        """Ends the process at once: the interpreter's teardown (torch's) takes a while, and a
        node given back is wanted within a second."""
        with self._leave_lock:  # another thread that is leaving finishes first
            say(why)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)


def first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
