"""The state a training carries: into its checkpoints, to the workers that join it, and back to
where it was when a step is abandoned.

Anything with ``state_dict()``/``load_state_dict()`` (a model, an optimizer, a scheduler, a
GradScaler, :class:`RandomState`) is carried through them; a dict, a list or an object with
attributes is carried by its contents, which are put back in place, so the caller's reference
stays good. Numbers and strings cannot be put back in place: the error says to keep them in a
dict.
"""
from __future__ import annotations

import copy
import random
import sys
from typing import Any


def check_carriable(name: str, obj: Any) -> None:
    if hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):
        return
    if isinstance(obj, (dict, list)) or (hasattr(obj, "__dict__") and not isinstance(obj, type)):
        return
    raise TypeError(f"carry({name}=...): a {type(obj).__name__} cannot be updated in place; "
                    f"keep it in a dict, e.g. carry({name}={{'value': ...}}), and read it from there")


def state_of(obj: Any) -> Any:
    """A picklable copy of ``obj``'s state, independent of ``obj`` from now on."""
    if hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):
        return copy.deepcopy(obj.state_dict())
    if isinstance(obj, dict):
        return copy.deepcopy(dict(obj))
    if isinstance(obj, list):
        return copy.deepcopy(list(obj))
    return copy.deepcopy(vars(obj))


def load_state(obj: Any, state: Any) -> None:
    """Puts ``state`` (from :func:`state_of`) back into ``obj`` in place."""
    if hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict"):
        if not state and not obj.state_dict():
            return  # nothing to carry (a disabled GradScaler refuses an empty state)
        obj.load_state_dict(state)
    elif isinstance(obj, dict):
        obj.clear()
        obj.update(state)
    elif isinstance(obj, list):
        obj[:] = state
    else:
        vars(obj).clear()
        vars(obj).update(state)


class RandomState:
    """The random generators of this process as carried state: torch's (CPU, and CUDA when it
    is in use), Python's ``random`` and NumPy's global one when NumPy is loaded. Carried with
    ``job.carry(rng=gaptrain.RandomState())``, a newcomer draws what the others draw, and a
    resumed training what it would have drawn."""

    def state_dict(self) -> dict[str, Any]:
        import torch

        state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state()
        if "numpy" in sys.modules:
            state["numpy"] = sys.modules["numpy"].random.get_state()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        import torch

        torch.set_rng_state(state["torch"])
        random.setstate(state["python"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state(state["cuda"])
        if "numpy" in state and "numpy" in sys.modules:
            sys.modules["numpy"].random.set_state(state["numpy"])
