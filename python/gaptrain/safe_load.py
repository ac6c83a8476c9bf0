"""Loading a torch checkpoint as data only. Unpickling runs whatever the file names: a checkpoint
another user planted, or one damaged so that it names something else, would run code as the
job's user. torch 2 refuses such files with ``weights_only=True``; torch 1.13 (Debian 12) has the
option but cannot read a float (an optimizer's learning rate), so on it the file's pickle is
first read without building anything, and loaded only when every global it names is one torch's
own weights_only loader allows (tensors, storages, dtypes, OrderedDict). Only the zip format
torch has written since 1.6 is read."""
from __future__ import annotations

import io
import pickle
import zipfile
from typing import Any, BinaryIO

import torch


class NotDataOnly(pickle.UnpicklingError):
    """The checkpoint names something beyond tensors and plain data."""


def _allowed_globals() -> dict[str, Any]:
    from torch._weights_only_unpickler import _get_allowed_globals
    return _get_allowed_globals()


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
    (the only way a pickle reaches code) must be an allowed one, else NotDataOnly."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self.allowed = _allowed_globals()

    def find_class(self, module: str, name: str) -> Any:
        if f"{module}.{name}" not in self.allowed:
            raise NotDataOnly(f"it names {module}.{name}, which is not tensors or plain data")
        return _Placeholder

    def persistent_load(self, pid: Any) -> Any:
        return _Placeholder()


def check_data_only(f: BinaryIO) -> None:
    """Raises NotDataOnly unless the checkpoint in ``f`` (torch's zip format) names only the
    globals torch's weights_only loader allows; zipfile.BadZipFile when it is not a zip."""
    with zipfile.ZipFile(f) as archive:
        pickles = [name for name in archive.namelist() if name.endswith("/data.pkl") or name == "data.pkl"]
        if len(pickles) != 1:
            raise NotDataOnly(f"it holds {len(pickles)} pickles, not the one torch.save writes")
        _GlobalsCheck(archive.read(pickles[0])).load()


def load_data_only(f: BinaryIO) -> Any:
    """The checkpoint in ``f``, on the CPU. ``f`` must be a file nobody else can change between
    the check and the load (the user's own, in a directory only the user can write:
    checkpoint.py opens it so)."""
    if int(torch.__version__.split(".")[0]) >= 2:
        return torch.load(f, map_location="cpu", weights_only=True)
    check_data_only(f)
    f.seek(0)
    return torch.load(f, map_location="cpu")
