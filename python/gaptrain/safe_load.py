"""Loading a torch checkpoint as data only. Unpickling runs whatever the file names: a checkpoint
another user planted, or one damaged so that it names something else, would run code as the
job's user. So the checkpoint's pickle is first read through without building anything, and the
checkpoint is loaded only when every global it names (the only way a pickle reaches code) is
one torch's own ``weights_only`` loader allows (tensors, storages, dtypes, OrderedDict), a NumPy
array or dtype (NumPy's random state is carried), or one the caller names. torch 1.13 (Debian
12) has ``weights_only`` but cannot read a float with it (an optimizer's learning rate), and
torch 2 before 2.4 cannot be told of more globals: the check is the same on every version. Only
the zip format torch has written since 1.6 is read."""
from __future__ import annotations

import inspect
import pickle
import zipfile
from typing import Any, BinaryIO, Iterable

import torch

# NumPy arrays and dtypes (numpy.random.get_state() holds one); under NumPy 2 `numpy._core`.
# Pickle protocol 2 (torch.save's) writes bytes as _codecs.encode(TEXT, "latin1"): a pure
# function.
_NUMPY_GLOBALS = {f"{package}.multiarray.{name}" for package in ("numpy.core", "numpy._core")
                  for name in ("_reconstruct", "scalar")} | {"numpy.ndarray", "numpy.dtype",
                                                             "_codecs.encode"}


class NotDataOnly(pickle.UnpicklingError):
    """The checkpoint names something beyond tensors and plain data."""


def _allowed_globals(also: Iterable[str]) -> set[str]:
    from torch._weights_only_unpickler import _get_allowed_globals
    return set(_get_allowed_globals()) | _NUMPY_GLOBALS | set(also)


class _Placeholder:
    """Stands for whatever an allowed global would build while the pickle is only looked at."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> "_Placeholder":
        return _Placeholder()

    def __setstate__(self, state: Any) -> None:
        pass

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def append(self, item: Any) -> None:
        pass

    def extend(self, items: Any) -> None:
        pass


class _GlobalsCheck(pickle.Unpickler):
    """Reads a pickle through, building nothing that is not plain data: every global it names
    must be an allowed one, else NotDataOnly."""

    def __init__(self, f: BinaryIO, allowed: set[str]) -> None:
        super().__init__(f, encoding="utf-8")
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        if f"{module}.{name}" not in self.allowed:
            raise NotDataOnly(f"it names {module}.{name}, which is not tensors or plain data")
        return _Placeholder

    def persistent_load(self, pid: Any) -> Any:
        return _Placeholder()


def check_data_only(f: BinaryIO, also_allowed: Iterable[str] = ()) -> None:
    """Raises NotDataOnly unless the checkpoint in ``f`` (torch's zip format) names only allowed
    globals (``also_allowed``: more, as "module.name"); zipfile.BadZipFile when it is no zip."""
    with zipfile.ZipFile(f) as archive:
        names = archive.namelist()
        pickles = [name for name in names if name.endswith("/data.pkl") or name == "data.pkl"]
        if len(pickles) != 1 or len(set(names)) != len(names):
            raise NotDataOnly("it is not laid out as torch.save writes (one data.pkl, each name once)")
        with archive.open(pickles[0]) as data:
            _GlobalsCheck(data, _allowed_globals(also_allowed)).load()


def load_data_only(f: BinaryIO, also_allowed: Iterable[str] = ()) -> Any:
    """The checkpoint in ``f``, on the CPU, once check_data_only passed. ``f`` must be a file
    nobody else can change between the check and the load (the user's own, in a directory only
    the user can write: checkpoint.py opens it so)."""
    check_data_only(f, also_allowed)
    f.seek(0)
    # Checked above; torch's own weights_only would refuse what was allowed beyond its list.
    unrestricted = {"weights_only": False} if "weights_only" in inspect.signature(torch.load).parameters else {}
    return torch.load(f, map_location="cpu", **unrestricted)
