"""Serves an elastic job's store on its home node (the home mode).

    GAPTRAIN_PYTHON -m gaptrain.store_host

In the home mode gaptrain-launch runs on a shared home node that never trains, and every node
the job trains on may be taken at any moment: no worker can serve the job's store for the job's
whole life, as the batch host's worker does in today's mode. gaptrain-launch starts this on the
home node before any worker, with the workers' environment (GAPTRAIN_RDZV_HOST and
GAPTRAIN_RDZV_PORT: where to serve; GAPTRAIN_STORE_SECRET, GAPTRAIN_JOB_ID), and keeps it for
the job's life. It serves the store until SIGTERM or SIGINT, then exits 0; it prints one line
once it serves. It holds no state of its own beyond the store's keys: started again after a
crash it serves an empty store, and the workers, whose connections broke, start again from the
checkpoint (docs/job-side.md, "The home mode").

The same TCPStore serves torchrun's c10d rendezvous (``gaptrain submit --torchrun``): every
agent is then a client of it.
"""
from __future__ import annotations

import signal
import sys
import threading
from typing import Any

from .jobfile import LaunchContext, LaunchContextError
from .store import JobStore, StoreLost

# A worker's store client gives up after this long without an answer; the server's own timeout
# only bounds its start.
SERVE_TIMEOUT_S = 60.0


def serve(context: LaunchContext) -> JobStore:
    """Starts serving the job's store; returns once it serves (it serves until the process
    ends). Raises StoreLost when it cannot (the port taken, the address not this host's)."""
    return JobStore(context.rdzv_host, context.rdzv_port, True, SERVE_TIMEOUT_S,
                    context.require_store_secret())


def main() -> int:
    try:
        context = LaunchContext.from_env()
        context.require_store_secret()
    except LaunchContextError as e:
        print(f"gaptrain.store_host: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        store = serve(context)
    except StoreLost as e:
        print(f"gaptrain.store_host: job {context.job_id}: {e}: is the port free, and "
              f"{context.rdzv_host} an address of this node?", file=sys.stderr)
        return 1
    print(f"gaptrain.store_host: serving job {context.job_id}'s store at "
          f"{context.rdzv_host}:{context.rdzv_port}", flush=True)
    while not stop.wait(3600.0):
        pass
    del store  # the server's thread ends with it
    return 0


if __name__ == "__main__":
    sys.exit(main())
