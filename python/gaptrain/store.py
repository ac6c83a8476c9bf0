"""The job's rendezvous store and the plans of its worker groups.

The store is a torch TCPStore: in today's mode served by rank 0's process on the batch host, the
one node gaptrain never takes from a job; in the home mode by ``gaptrain.store_host`` on the
home node, which never trains. Every worker process announces itself there once
(``ready/NODE``, a counter: its value is the process's token). The group's plans are numbered
(``plan/K``: the members in rank order, each with its token) and the members of plan K form
the process group ``group/K`` on the same store. A worker not in the newest plan waits for one
that names it, or for the training's end. Who posts plan K+1: in today's mode rank 0, always;
in the home mode whoever wins ``claim/K`` (group.py says who may try).

The store answers anyone who reaches its port, and has no way to tell the job's workers from
another local user. Every key therefore lives under the job's secret (GAPTRAIN_STORE_SECRET,
random per launch, in the workers' environment only): a user who knows no key name can neither
read a plan, post one, nor mark a member as leaving. The process groups' own keys are under it
too.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import timedelta

import torch.distributed as dist

from . import compat


class StoreLost(RuntimeError):
    """The job's store cannot be reached: the process serving it ended (a crash, the batch host
    itself went, or the home node's store host was started again, empty). Only a restart from
    the checkpoint can go on from here."""


@dataclass(frozen=True)
class Plan:
    number: int
    members: tuple[tuple[str, int], ...]  # (node, token) in rank order: rank 0 first
    done: bool = False  # the training is over: waiting workers leave
    # Home mode: every member left; the checkpoint holds the state. The next workers resume
    # from it (a paused plan has no members).
    paused: bool = False

    def rank_of(self, node: str, token: int) -> int | None:
        for rank, member in enumerate(self.members):
            if member == (node, token):
                return rank
        return None

    @property
    def nodes(self) -> list[str]:
        return [node for node, _ in self.members]

    def to_json(self) -> str:
        return json.dumps({"number": self.number, "members": self.members, "done": self.done,
                           "paused": self.paused})

    @staticmethod
    def from_json(text: str | bytes) -> "Plan":
        d = json.loads(text)
        return Plan(int(d["number"]), tuple((str(n), int(t)) for n, t in d["members"]), bool(d["done"]),
                    bool(d.get("paused", False)))


class JobStore:
    def __init__(self, host: str, port: int, serve: bool, timeout_s: float, secret: str) -> None:
        if not secret:
            raise ValueError("the job's store needs its secret (GAPTRAIN_STORE_SECRET)")
        self.timeout = timedelta(seconds=timeout_s)
        try:
            self._server = compat.tcp_store(host, port, serve, self.timeout)
        except (RuntimeError, OSError) as e:  # torch raises TimeoutError (an OSError) too
            raise StoreLost(f"cannot reach the job's store at {host}:{port}: {e}") from e
        self.store = dist.PrefixStore(f"gaptrain/{secret}", self._server)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except (RuntimeError, OSError) as e:  # a closed connection, or the store timed out
            raise StoreLost(f"the job's store stopped answering: {e}") from e

    def announce(self, node: str) -> int:
        """This process's token: how many worker processes node has started so far."""
        return int(self._call(self.store.add, f"ready/{node}", 1))

    def token_of(self, node: str) -> int:
        return int(self._call(self.store.add, f"ready/{node}", 0))

    def count(self, key: str, by: int = 0) -> int:
        return int(self._call(self.store.add, key, by))

    def latest_plan_number(self) -> int:
        return self.count("plan/latest")

    def post(self, plan: Plan) -> None:
        """By the one poster of this number (rank 0, or the winner of its claim), numbers one by
        one: the body first, so a reader never misses it. Each member's token is recorded as
        taken: only a newer process of that node is a newcomer (see :meth:`taken`)."""
        self._call(self.store.set, f"plan/{plan.number}", plan.to_json())
        for node, token in plan.members:
            taken = self.taken(node)
            if token > taken:  # posts are serialised (one poster a number): no lost update
                self._call(self.store.add, f"taken/{node}", token - taken)
        self._call(self.store.add, "plan/latest", 1)

    def taken(self, node: str) -> int:
        """The newest token of ``node`` any plan named: a process with a higher one has not
        been taken in yet."""
        return self.count(f"taken/{node}")

    def claim(self, key: str, claimant: str) -> str:
        """Sets ``key`` to ``claimant`` unless it holds a value already; returns the value it
        holds then (``claimant`` when this call won). Atomic in the store (compare-and-set)."""
        return self._call(self.store.compare_set, key, "", claimant).decode()

    def take_over(self, key: str, holder: str, claimant: str) -> bool:
        """Replaces ``holder``'s claim by ``claimant``'s if ``key`` still holds it."""
        return self._call(self.store.compare_set, key, holder, claimant).decode() == claimant

    def plan(self, number: int) -> Plan:
        return Plan.from_json(self._call(self.store.get, f"plan/{number}"))

    def wait_for_plan(self, after: int, patience_s: float, poll_s: float = 0.02) -> Plan:
        """The newest plan numbered above ``after``, waiting up to ``patience_s`` for one."""
        deadline = time.monotonic() + patience_s
        while True:
            latest = self.latest_plan_number()
            if latest > after:
                return self.plan(latest)
            if time.monotonic() > deadline:
                raise StoreLost(f"no new plan was posted within {patience_s:.0f} s")
            time.sleep(poll_s)

    def group_store(self, plan: Plan) -> dist.PrefixStore:
        return dist.PrefixStore(f"group/{plan.number}", self.store)
