"""Progress reports: rank 0 appends one JSON line at a time to the file gaptrain-launch reads
(GAPTRAIN_PROGRESS_FILE), at most every ``every_s`` seconds, so that at least one a second
reaches gaptraind while steps are shorter than that. gaptraind learns the job's throughput,
its scaling curve and its resize costs from them; ``gaptrain job ID`` shows them.
"""
from __future__ import annotations

import json
import os
import time
from typing import Mapping

from .positions import DataPosition
from .safe_files import UnsafeFileError, open_own_for_append, open_own_for_reading
from .say import say


class ProgressWriter:
    """Writes only progress beyond what the file already says: after a restart from a checkpoint
    the steps since it are redone, and samples_done must not go back (gaptraind would take the
    redone work for new)."""

    def __init__(self, path: str | None, every_s: float = 0.25) -> None:
        self.path, self.every_s = path, every_s
        self._last = 0.0
        self._highest: float | None = None  # samples_done of the file's last line, read once
        self._refused = False  # the file is not the user's own: no progress, said once

    def _refuse(self, error: UnsafeFileError) -> None:
        self._refused = True
        say(f"not reporting progress: {error}")

    def due(self) -> bool:
        return time.monotonic() - self._last >= self.every_s

    def write(self, position: DataPosition, world_size: int, rank: int,
              extra: Mapping[str, float] | None = None) -> None:
        """``extra``: with a batch range, the step's global_batch and the gradients' grad_sqr
        and grad_var (noise.py), which gaptraind learns the job's noise scale from."""
        if rank != 0 or not self.path:
            return
        if self._refused:
            return
        try:
            if self._highest is None:
                self._highest = _last_samples_done(self.path)
        except UnsafeFileError as e:
            self._refuse(e)
            return
        if position.samples_done < self._highest:
            return
        self._highest = position.samples_done
        self._last = time.monotonic()
        # leaves_on_job_file: this training leaves a node by itself once the job file drops it,
        # so gaptrain-launch waits a moment before it sends SIGTERM (docs/job-side.md).
        line = json.dumps({"time": round(time.time(), 3), "samples_done": position.samples_done,
                           "world_size": world_size, "step": position.step, "epoch": position.epoch,
                           "leaves_on_job_file": True, **(extra or {})})
        # One write() of a whole line on an O_APPEND file: the reader never sees half a line
        # followed by more. Only into the user's own file (safe_files.py).
        try:
            fd = open_own_for_append(self.path)
        except UnsafeFileError as e:
            self._refuse(e)
            return
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)


def _last_samples_done(path: str) -> float:
    f = open_own_for_reading(path)
    if f is None:
        return 0.0
    with f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 4096))
        lines = f.read().splitlines()
    for line in reversed(lines):
        try:
            return float(json.loads(line)["samples_done"])
        except (ValueError, KeyError, TypeError):
            continue
    return 0.0
