"""The helper's lines in the job's output: timed, prefixed, whole lines."""
from __future__ import annotations

import sys
import time


def say(message: str, rank: int | None = None) -> None:
    """Writes ``message`` to stderr as ``gaptrain HH:MM:SS: message``; with ``rank``, only on
    rank 0 (what every worker would say alike)."""
    if rank not in (None, 0):
        return
    sys.stderr.write(f"gaptrain {time.strftime('%H:%M:%S')}: {message}\n")
    sys.stderr.flush()
