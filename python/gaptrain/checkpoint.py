"""Atomic checkpoints: written to a temporary file, synced, renamed over the old one, so a
worker killed while saving leaves the previous checkpoint whole."""
from __future__ import annotations

import os
import socket
from typing import Any

import torch


def save_checkpoint(path: str, state: dict[str, Any]) -> None:
    tmp = f"{path}.tmp.{socket.gethostname()}.{os.getpid()}"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_checkpoint(path: str) -> dict[str, Any] | None:
    """The checkpoint at ``path``, or None when there is none yet."""
    try:
        with open(path, "rb") as f:
            return torch.load(f, map_location="cpu")
    except FileNotFoundError:
        return None
