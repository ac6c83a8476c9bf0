"""The job's rendezvous store and the plans of its worker groups.

The store is a torch TCPStore served by rank 0's process on the batch host, the one node
gaptrain never takes from a job. Every worker process announces itself there once
(``ready/NODE``, a counter: its value is the process's token). Rank 0 alone decides who trains:
it posts numbered *plans* (``plan/K``: the members in rank order, each with its token) and the
members of plan K form the process group ``group/K`` on the same store. A worker not in the
newest plan waits for one that names it, or for the training's end.

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
    """The batch host's store cannot be reached: its process ended (a crash, or the batch host
    itself went). Only a restart from the checkpoint can go on from here."""


@dataclass(frozen=True)
class Plan:
    number: int
    members: tuple[tuple[str, int], ...]  # (node, token) in rank order: rank 0 first
    done: bool = False  # the training is over: waiting workers leave

    def rank_of(self, node: str, token: int) -> int | None:
        for rank, member in enumerate(self.members):
            if member == (node, token):
                return rank
        return None

    @property
    def nodes(self) -> list[str]:
        return [node for node, _ in self.members]

    def to_json(self) -> str:
        return json.dumps({"number": self.number, "members": self.members, "done": self.done})

    @staticmethod
    def from_json(text: str | bytes) -> "Plan":
        d = json.loads(text)
        return Plan(int(d["number"]), tuple((str(n), int(t)) for n, t in d["members"]), bool(d["done"]))


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
        """Rank 0 only, numbers one by one: the body first, so a reader never misses it."""
        self._call(self.store.set, f"plan/{plan.number}", plan.to_json())
        self._call(self.store.add, "plan/latest", 1)

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
                raise StoreLost(f"rank 0 posted no new plan within {patience_s:.0f} s")
            time.sleep(poll_s)

    def group_store(self, plan: Plan) -> dist.PrefixStore:
        return dist.PrefixStore(f"group/{plan.number}", self.store)
