"""Runs a script written for torchrun on this node of a gaptrain job, with nothing added to it.

    PYTHON -m gaptrain.torchrun SCRIPT [ARGS...]

gaptrain-launch starts this once per node (``gaptrain submit --torchrun SCRIPT``), with the
interpreter ``gaptrain submit`` recorded (``--python``). It runs torchrun's elastic agent with
what a gaptrain job needs: the node range of the job, the c10d rendezvous served on the batch
host (the one node gaptrain never takes from the job) at the address and port gaptrain-launch
chose, the job id as rendezvous id, and compat.py's fixes for the torch at hand. The script
reads RANK, LOCAL_RANK, WORLD_SIZE as under torchrun, and resumes from its own checkpoint.

Two guards a plain torchrun lacks:

* **Restarts are bounded, resizes are not.** Every resize restarts the workers once (torchrun's
  way), and those restarts are free. A failure of the workers that no resize explains (the job's
  nodes in the job file did not change while they ran) and that comes within 5 minutes of their
  start counts; after GAPTRAIN_MAX_RESTARTS of them in a row (gaptrain-launch's
  ``--max-restarts``, default 3) the node gives up: it says so and exits 76, and gaptrain-launch
  ends the job FAILED instead of restarting a deterministic crash forever.
* **Independent copies are called out.** Each worker runs the script through this module
  (``--as-worker``), which watches for ``torch.distributed.init_process_group``. A script run on
  more than one worker that never forms a group (or forms one smaller than WORLD_SIZE) is that
  many independent copies of one training, each with all the data, each writing the same files:
  rank 0 prints a warning saying so after 60 s, or when the script ends (not when it crashed).

Environment (set by gaptrain-launch): GAPTRAIN_MASTER_ADDR, GAPTRAIN_RDZV_HOST,
GAPTRAIN_RDZV_PORT, GAPTRAIN_JOB_ID, GAPTRAIN_JOB_FILE, GAPTRAIN_MIN_NODES, GAPTRAIN_MAX_NODES,
GAPTRAIN_MAX_RESTARTS; optional GAPTRAIN_NPROC_PER_NODE (1: one worker per node; set it to the
GPUs of a node).
"""
from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import threading
import time
import traceback
from typing import Callable, Mapping, Sequence

from . import compat
from .jobfile import EXIT_LEFT, LaunchContext, LaunchContextError

# Exit status of a step that failed for good: gaptrain-launch does not start it again and ends
# the job FAILED (launcher/node_loss.hpp's kExitFailedForGood).
EXIT_FAILED_FOR_GOOD = 76
# Workers that ran this long before failing made progress: their failure starts a fresh count.
STABLE_RUN_S = 300.0
# A failure right after the job's nodes changed may be seen before the job file says so (the
# launcher writes it as it stops the leaving step): this long to see the change first.
RESIZE_SETTLE_S = 3.0
# How long a worker of a multi-worker job may run before it should have formed its group.
GROUP_EXPECTED_WITHIN_S = 60.0
WORKER_FLAG = "--as-worker"


def torchrun_arguments(ctx: LaunchContext, script: Sequence[str], env: Mapping[str, str]) -> list[str]:
    is_host = 1 if ctx.is_batch_host else 0
    nproc = env.get("GAPTRAIN_NPROC_PER_NODE") or "1"
    # Underscore spellings: torch 1.13 takes only those (2.x both). --redirects/--tee 2: the
    # default 0 crashes torch 1.13 on Python 3.11. --max_restarts: the agent's own budget is
    # spent by every resize; RestartBudget bounds the failures no resize explains.
    return [
        f"--nnodes={ctx.min_nodes}:{max(ctx.min_nodes, ctx.max_nodes)}",
        f"--nproc_per_node={nproc}",
        "--rdzv_backend=c10d",
        f"--rdzv_endpoint={ctx.rdzv_host}:{ctx.rdzv_port}",
        f"--rdzv_id={ctx.job_id}",
        f"--rdzv_conf=is_host={is_host},last_call_timeout=5",
        "--max_restarts=1000",
        "--monitor_interval=1",
        "--redirects=2",
        "--tee=2",
        "-m", "gaptrain.torchrun", WORKER_FLAG,
        *script,
    ]


class RestartBudget:
    """Counts the workers' failures that no resize explains, in a row.

    ``started(now, nodes)`` at each start of the workers, ``failed(now, nodes)`` at each failure
    with the job's nodes then (None: unknown); ``failed`` returns True when the node should give
    up. A failure counts when the nodes are those of the start and the workers ran less than
    ``stable_s``; any other failure starts the count afresh."""

    def __init__(self, max_restarts: int, stable_s: float = STABLE_RUN_S) -> None:
        self.max_restarts = max(0, max_restarts)
        self.stable_s = stable_s
        self.in_a_row = 0
        self._started_at = 0.0
        self._nodes: object = None

    def started(self, now: float, nodes: object) -> None:
        self._started_at = now
        self._nodes = nodes

    def explained(self, now: float, nodes: object) -> bool:
        return nodes != self._nodes or now - self._started_at >= self.stable_s

    def failed(self, now: float, nodes: object) -> bool:
        self.in_a_row = 0 if self.explained(now, nodes) else self.in_a_row + 1
        return self.in_a_row > self.max_restarts


def job_nodes(path: str | None) -> object:
    """The job file's nodes and leaving nodes (what a resize changes); None when unreadable."""
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        return (tuple(doc.get("nodes", [])), tuple(doc.get("leaving", [])))
    except (OSError, ValueError, AttributeError):
        return None


class _GaveUp:
    """Set by the agent's patched monitor when this node gives up."""

    reason = ""


def bound_the_agents_restarts(budget: RestartBudget, job_file: str | None, node: str) -> bool:
    """Makes torchrun's agent (this process) stop restarting its workers once ``budget`` says
    so: it then stops them and returns FAILED, as when its own budget runs out. False when this
    torch's agent lacks the methods patched (its own --max_restarts is then the only bound)."""
    from torch.distributed.elastic.agent.server.api import WorkerState
    from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent

    initialize = getattr(LocalElasticAgent, "_initialize_workers", None)
    monitor = getattr(LocalElasticAgent, "_monitor_workers", None)
    if initialize is None or monitor is None:
        return False

    def initialize_counting(self, worker_group):
        budget.started(time.monotonic(), job_nodes(job_file))
        return initialize(self, worker_group)

    def monitor_counting(self, worker_group):
        result = monitor(self, worker_group)
        if result.state not in {WorkerState.FAILED, WorkerState.UNHEALTHY}:
            return result
        now = time.monotonic()
        nodes = job_nodes(job_file)
        settle_until = now + RESIZE_SETTLE_S
        while not budget.explained(time.monotonic(), nodes) and time.monotonic() < settle_until:
            time.sleep(0.1)
            nodes = job_nodes(job_file)
        if budget.failed(time.monotonic(), nodes):
            self._remaining_restarts = 0
            _GaveUp.reason = (
                f"the script failed {budget.in_a_row} times in a row on {node} within "
                f"{STABLE_RUN_S:.0f} s of its start, with no resize of the job in between (its "
                f"error is above): giving up after {budget.max_restarts} restart(s) "
                "(gaptrain submit --max-restarts N allows more); the job fails")
        elif budget.in_a_row:
            print(f"gaptrain.torchrun: the script failed on {node} ({budget.in_a_row} of "
                  f"{budget.max_restarts + 1} failures in a row before giving up): restarting "
                  "its workers", file=sys.stderr, flush=True)
        return result

    LocalElasticAgent._initialize_workers = initialize_counting
    LocalElasticAgent._monitor_workers = monitor_counting
    return True


# --- in each worker ----------------------------------------------------------------------


class GroupWatch:
    """What a worker learns of the process group its script forms."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.formed: int | None = None  # the world size of the group formed, None: none yet
        self.warned = False
        self._lock = threading.Lock()

    def problem(self) -> str | None:
        """Why the workers are not one training, or None."""
        if self.expected <= 1:
            return None
        if self.formed is None:
            return (f"the script runs on {self.expected} workers and has not called "
                    "torch.distributed.init_process_group: they are "
                    f"{self.expected} independent copies of one training, each with all the data, "
                    "each writing the same files. Form one process group (init_process_group() "
                    "reads RANK and WORLD_SIZE from the environment torchrun sets) and make rank 0 "
                    "alone write, or submit it on one node (-N 1)")
        if self.formed != self.expected:
            return (f"the script formed a process group of {self.formed} where the job has "
                    f"{self.expected} workers: the others train apart from it. Pass no "
                    "world_size to init_process_group (it reads WORLD_SIZE from the environment)")
        return None

    def warn_if_wrong(self) -> None:
        with self._lock:
            if self.warned:
                return
            problem = self.problem()
            if problem is None:
                return
            self.warned = True
        print(f"gaptrain.torchrun: warning: {problem}", file=sys.stderr, flush=True)


def watch_group_forming(watch: GroupWatch, dist_module) -> None:
    """Wraps ``init_process_group`` so that ``watch`` learns the size of the group formed (and
    says at once when it is not the job's)."""
    original = dist_module.init_process_group

    def init_process_group_watched(*args, **kwargs):
        result = original(*args, **kwargs)
        watch.formed = dist_module.get_world_size()
        watch.warn_if_wrong()
        return result

    dist_module.init_process_group = init_process_group_watched
    c10d = getattr(dist_module, "distributed_c10d", None)
    if c10d is not None and getattr(c10d, "init_process_group", None) is original:
        c10d.init_process_group = init_process_group_watched


def run_as_worker(script: Sequence[str], env: Mapping[str, str] = os.environ,
                  run: Callable[[str], object] | None = None) -> int:
    """Runs SCRIPT ARGS as ``python SCRIPT ARGS`` would, in this process; rank 0 of a job of
    several workers watches for the group (one warning per worker start at most)."""
    path = script[0]
    # Rank 0 alone watches (one warning a job, not one a worker); the others expect nothing.
    rank_zero = int(env.get("RANK") or 0) == 0
    watch = GroupWatch(int(env.get("WORLD_SIZE") or 1) if rank_zero else 1)
    if watch.expected > 1:
        import torch.distributed as dist

        watch_group_forming(watch, dist)
        timer = threading.Timer(GROUP_EXPECTED_WITHIN_S, watch.warn_if_wrong)
        timer.daemon = True
        timer.start()
    sys.argv = list(script)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        (run or (lambda p: runpy.run_path(p, run_name="__main__")))(path)
    except SystemExit as e:
        if e.code in (None, 0):
            watch.warn_if_wrong()  # it ran to its end: copies or not, it is said now
        raise
    except BaseException as e:  # noqa: B036: told as `python SCRIPT` tells it, then exit 1
        print_from_the_script(e, path)
        return 1
    watch.warn_if_wrong()
    return 0


def print_from_the_script(error: BaseException, path: str) -> None:
    """The traceback as ``python SCRIPT`` prints it: from the script's first frame on, without
    this module's and runpy's."""
    tb = error.__traceback__
    script = os.path.abspath(path)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb or error.__traceback__)
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == [WORKER_FLAG]:
        if len(args) < 2:
            print("gaptrain.torchrun: --as-worker needs the script", file=sys.stderr)
            return 2
        return run_as_worker(args[1:])
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    try:
        ctx = LaunchContext.from_env()
    except LaunchContextError as e:
        print(f"gaptrain.torchrun: {e}", file=sys.stderr)
        return 2
    # A notice must not kill a script that knows nothing of it: the agent ignores the signal,
    # and its workers inherit that (an ignored signal stays ignored across exec).
    notice = int(os.environ.get("GAPTRAIN_NOTICE_SIGNAL") or signal.SIGUSR1)
    if notice > 0:
        signal.signal(notice, signal.SIG_IGN)
    compat.stores_without_libuv_if_missing()
    compat.keep_rendezvous_open_on_signal()
    compat.one_worker_store_per_round()
    node = os.environ.get("SLURMD_NODENAME") or "this node"
    budget = RestartBudget(int(os.environ.get("GAPTRAIN_MAX_RESTARTS") or 3))
    bounded = bound_the_agents_restarts(budget, os.environ.get("GAPTRAIN_JOB_FILE"), node)
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import main as torchrun_main

    arguments = torchrun_arguments(ctx, args, os.environ)
    if not bounded:
        # Without the patch every resize spends the agent's own budget: a bound still, if a
        # looser one.
        arguments = [a if a != "--max_restarts=1000" else "--max_restarts=20" for a in arguments]
    sys.argv = ["torchrun", *arguments]
    try:
        torchrun_main()
    except ChildFailedError:
        if not _GaveUp.reason:
            raise
        print(f"gaptrain.torchrun: {_GaveUp.reason}", file=sys.stderr, flush=True)
        return EXIT_FAILED_FOR_GOOD
    except SignalException as e:
        # The agent stopped its workers on a signal; its traceback would read like a crash.
        return stopped_by_signal(int(e.sigval), node, os.environ.get("GAPTRAIN_JOB_FILE"), ctx.home_mode)
    return 0


def stopped_by_signal(signum: int, node: str, job_file: str | None, home_mode: bool = False) -> int:
    """The exit of an agent stopped by a signal: 0 when its node leaves the job (the launcher
    asked it to: a clean leave), else 128 + the signal, each said in one line. In the home mode
    SIGTERM always means the node goes (the launcher's, or Slurm's preemption, which the job file
    may not know yet): EXIT_LEFT, as the helper's workers."""
    nodes = job_nodes(job_file)
    leaving = nodes is not None and (node in nodes[1] or node not in nodes[0])
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    if leaving or (home_mode and signum == signal.SIGTERM):
        print(f"gaptrain.torchrun: {node} leaves the job ({name}): its workers stopped",
              file=sys.stderr, flush=True)
        return EXIT_LEFT if home_mode else 0
    print(f"gaptrain.torchrun: stopped by {name}: its workers stopped", file=sys.stderr, flush=True)
    return 128 + signum


if __name__ == "__main__":
    sys.exit(main())
