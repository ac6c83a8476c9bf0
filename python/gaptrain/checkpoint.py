"""Atomic checkpoints: written to a fresh temporary file, synced, renamed over the old one, so a
worker killed while saving leaves the previous checkpoint whole. Only the user's own checkpoint,
in a directory nobody else can write, is loaded (safe_files.py), and as data only: unpickling a
file that names code would run it as the job's user (safe_load.py)."""
from __future__ import annotations

import os
from typing import Any, Iterable

import torch

from .safe_files import check_own_directory, open_own_for_reading, replace_atomically
from .safe_load import load_data_only


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be loaded; the message says what to do."""


def save_checkpoint(path: str, state: dict[str, Any]) -> None:
    check_own_directory(os.path.dirname(os.path.abspath(path)), f"the checkpoint {path}")
    replace_atomically(path, lambda f: torch.save(state, f))


def load_checkpoint(path: str, also_allowed: Iterable[str] = ()) -> dict[str, Any] | None:
    """The checkpoint at ``path``, or None when there is none yet. Raises UnsafeFileError for a
    checkpoint (or directory) not the user's own, CheckpointError for one that cannot be read or
    names more than tensors and plain data (``also_allowed``: more globals that may be built,
    as "module.name"; safe_load.py)."""
    check_own_directory(os.path.dirname(os.path.abspath(path)), f"the checkpoint {path}")
    f = open_own_for_reading(path)
    if f is None:
        return None
    with f:
        try:
            state = load_data_only(f, also_allowed)
        except Exception as e:  # truncated, damaged, or objects beyond tensors and plain data
            raise CheckpointError(
                f"the checkpoint {path} cannot be read ({type(e).__name__}: "
                f"{str(e).strip().splitlines()[0] if str(e).strip() else 'no detail'}): it is "
                "damaged, or holds more than tensors and plain data. Move it away to train from "
                "the start, or put a good copy there") from e
    if not isinstance(state, dict):
        raise CheckpointError(f"the checkpoint {path} holds a {type(state).__name__}, not the "
                              "dict gaptrain saves: move it away or put a good copy there")
    return state
