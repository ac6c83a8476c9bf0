"""Runs a script written for torchrun on this node of a gaptrain job, with nothing added to it.

    python3 -m gaptrain.torchrun SCRIPT [ARGS...]

gaptrain-launch starts this once per node (``gaptrain submit --torchrun SCRIPT``). It runs
torchrun's elastic agent with what a gaptrain job needs: the node range of the job, the c10d
rendezvous served on the batch host (the one node gaptrain never takes from the job) at the
address and port gaptrain-launch chose, the job id as rendezvous id, a high restart budget (every
shrink restarts the workers once), and compat.py's fixes for the torch at hand. The script
reads RANK, LOCAL_RANK, WORLD_SIZE as under torchrun, and resumes from its own checkpoint.

Environment (set by gaptrain-launch): GAPTRAIN_MASTER_ADDR, GAPTRAIN_RDZV_HOST,
GAPTRAIN_RDZV_PORT, GAPTRAIN_JOB_ID, GAPTRAIN_MIN_NODES, GAPTRAIN_MAX_NODES; optional
GAPTRAIN_NPROC_PER_NODE (1: one worker per node; set it to the GPUs of a node).
"""
from __future__ import annotations

import os
import signal
import sys
from typing import Mapping, Sequence

from . import compat
from .jobfile import LaunchContext, LaunchContextError


def torchrun_arguments(ctx: LaunchContext, script: Sequence[str], env: Mapping[str, str]) -> list[str]:
    is_host = 1 if ctx.is_batch_host else 0
    nproc = env.get("GAPTRAIN_NPROC_PER_NODE") or "1"
    # Underscore spellings: torch 1.13 takes only those (2.x both). --redirects/--tee 2: the
    # default 0 crashes torch 1.13 on Python 3.11.
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
        *script,
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
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
    from torch.distributed.run import main as torchrun_main

    sys.argv = ["torchrun", *torchrun_arguments(ctx, args, os.environ)]
    torchrun_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
