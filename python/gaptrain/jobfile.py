"""What gaptrain-launch tells every worker: the environment it starts it with, and the job file
it rewrites (atomically) on every change of the job's nodes.

The job file is JSON, e.g.::

    {"job_id": 42, "generation": 3, "nodes": ["n1", "n2"], "leaving": ["n3"],
     "notice": {"n2": 1764300060.5}, "min_nodes": 1, "max_nodes": 4,
     "batch": {"tuned": 128, "global": 256, "per_node": 128, "accumulation": 1, "lr_gain": 1.8}}

``nodes`` are the nodes the training should use now (batch host first; in the home mode only
training nodes, and none while the job is paused), ``leaving`` those being
given back (their workers end their step and leave), ``notice`` nodes that will be taken at
about the given Unix time, ``batch`` (only for a job with a batch range) the global batch
gaptraind chose for the job's nodes (batching.py). ``generation`` grows by one with every
change. docs/job-side.md describes the whole contract.
"""
from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass, field
from typing import Mapping

from .batching import BatchInstruction


# Home mode: a step ends with this status when its worker left the job because its node goes
# (the job file, or SIGTERM: gaptrain-launch's, or Slurm's when it preempts the satellite), the
# helper's and gaptrain.torchrun's agent alike. gaptrain-launch drops the node at once and does
# not take the end for the training's (status 0): in the home mode a node may be taken without
# the launcher asking. Today's mode keeps status 0 for a leave.
EXIT_LEFT = 77


class LaunchContextError(RuntimeError):
    """The worker was not started the way gaptrain-launch starts it."""


@dataclass(frozen=True)
class JobView:
    """One version of the job file."""

    job_id: int
    generation: int
    nodes: tuple[str, ...]
    leaving: tuple[str, ...] = ()
    notice: Mapping[str, float] = field(default_factory=dict)
    min_nodes: int = 1
    max_nodes: int = 1
    batch: BatchInstruction | None = None

    @staticmethod
    def parse(text: str) -> "JobView":
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError("the job file is not a JSON object")
        nodes = doc.get("nodes")
        # Empty while the whole job is being stopped (a requeue): every worker leaves.
        if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
            raise ValueError("the job file's nodes must be a list of names")
        notice = doc.get("notice", {})
        if not isinstance(notice, dict):
            raise ValueError("the job file's notice must be an object of node: Unix time")
        return JobView(
            job_id=int(doc["job_id"]),
            generation=int(doc["generation"]),
            nodes=tuple(nodes),
            leaving=tuple(doc.get("leaving", [])),
            notice={str(k): float(v) for k, v in notice.items()},
            min_nodes=int(doc.get("min_nodes", 1)),
            max_nodes=int(doc.get("max_nodes", len(nodes))),
            batch=BatchInstruction.parse(doc["batch"]) if isinstance(doc.get("batch"), dict) else None,
        )


class JobFile:
    """The launcher's job file, re-read only when it changed (one stat() a call)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._view: JobView | None = None

    def read(self) -> JobView:
        st = os.stat(self.path)
        stamp = (st.st_mtime_ns, st.st_ino)  # the launcher renames a new file over the old one
        if self._view is None or stamp != self._stamp:
            with open(self.path, encoding="utf-8") as f:
                self._view = JobView.parse(f.read())
            self._stamp = stamp
        return self._view


@dataclass(frozen=True)
class LaunchContext:
    """The worker's place in the job, from the environment gaptrain-launch sets."""

    job_id: int
    node: str  # this worker's node
    batch_host: str  # today's mode: rank 0's node, for the job's whole life; home mode: the home node
    rdzv_host: str  # the address the batch host is reached at
    rdzv_port: int
    store_secret: str  # the prefix of the job's keys in the store (store.py)
    job_file: str
    progress_file: str | None
    min_nodes: int
    max_nodes: int
    # The home mode (GAPTRAIN_HOME_MODE=1): the batch script runs on a home node that never
    # trains, and serves the store there (gaptrain.store_host); every worker may be taken.
    home_mode: bool = False

    @property
    def is_batch_host(self) -> bool:
        """Whether this worker serves the store and is rank 0 for the job's life (today's mode
        only: in the home mode no worker runs on the batch script's node)."""
        return not self.home_mode and self.node == self.batch_host

    def require_store_secret(self) -> str:
        """The secret the helper's store keys live under (store.py); torchrun's agent needs none."""
        if not self.store_secret:
            raise LaunchContextError(
                "GAPTRAIN_STORE_SECRET is not set: run this under gaptrain-launch "
                "(gaptrain submit -N MIN-MAX -- python3 SCRIPT ...)"
            )
        return self.store_secret

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> "LaunchContext":
        env = os.environ if env is None else env

        def need(name: str) -> str:
            value = env.get(name)
            if not value:
                raise LaunchContextError(
                    f"{name} is not set: run this under gaptrain-launch "
                    "(gaptrain submit -N MIN-MAX -- python3 SCRIPT ...)"
                )
            return value

        batch_host = need("GAPTRAIN_MASTER_ADDR")
        home_mode = env.get("GAPTRAIN_HOME_MODE") or "0"
        if home_mode not in ("0", "1"):
            raise LaunchContextError(f"GAPTRAIN_HOME_MODE is {home_mode!r}: 1 (the batch script on a home node) "
                                     "or 0 (on the first training node); gaptrain-launch sets it")
        return LaunchContext(
            job_id=int(need("GAPTRAIN_JOB_ID")),
            node=env.get("SLURMD_NODENAME") or socket.gethostname(),
            batch_host=batch_host,
            rdzv_host=env.get("GAPTRAIN_RDZV_HOST") or batch_host,
            rdzv_port=int(env.get("GAPTRAIN_RDZV_PORT") or 29400),
            store_secret=env.get("GAPTRAIN_STORE_SECRET", ""),
            job_file=env.get("GAPTRAIN_JOB_FILE", ""),
            progress_file=env.get("GAPTRAIN_PROGRESS_FILE") or None,
            min_nodes=int(env.get("GAPTRAIN_MIN_NODES") or 1),
            max_nodes=int(env.get("GAPTRAIN_MAX_NODES") or 1),
            home_mode=home_mode == "1",
        )
