"""A state kept per stream (order "streams"): a recurrent network's hidden state, carried across
the windows of each stream whichever worker holds the stream.

    state = loader.stream_state(lambda n: model.init_hidden(n), dim=1)
    for x, y in loader:
        hidden = state.get()              # the rows of this batch's streams, in order
        out, hidden = model(x, hidden)
        state.set(hidden)                 # what the next window of each stream continues from
        ...

Each worker keeps the state of the streams it holds. At a regroup every member of the old group
(those that leave too, even in the middle of a step) publishes, in the job's store, the rows of
its streams as they were after the last step the group completed (a worker that leaves after
its gradients of a step were averaged also as they are after that step, which the others may
finish without it), under that step's number; a worker given other streams
takes their rows from there at its next ``get()``. A stream whose worker vanished without a word
starts afresh (``init``), and the helper says so. An epoch starts every stream afresh.
"""
from __future__ import annotations

import pickle
import time
from typing import Any, Callable

import torch

from .say import say


def _leaves(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    raise TypeError(f"a stream state is a tensor or tuples/lists of tensors, not {type(value).__name__}")


class StreamState:
    def __init__(self, loader: Any, init: Callable[[int], Any], dim: int) -> None:
        self.loader, self.init, self.dim = loader, init, dim
        self._done: tuple[tuple[int, ...], Any] | None = None  # after the last completed step
        self._pending: tuple[tuple[int, ...], Any] | None = None  # set() in the step under way

    def get(self) -> Any:
        """The state this batch's streams continue from (call it once a step, before the
        forward pass)."""
        job, streams = self.loader.job, self.loader.streams
        if job.position.offset == 0:  # an epoch starts every stream afresh
            self._done = None
            return self.init(len(streams))
        if self._done is not None and self._done[0] == streams:
            return self._done[1]
        return self._gather(streams)

    def set(self, value: Any) -> None:
        """The state after this step's forward pass: what the streams' next windows continue
        from, once the step is done."""
        self._pending = (self.loader.streams, tuple(t.detach() for t in _leaves(value)), value)

    # ----- what the job calls ---------------------------------------------------------------

    def step_ended(self, completed: bool) -> None:
        if completed and self._pending is not None:
            streams, _, value = self._pending
            self._done = (streams, value)
        self._pending = None

    def publish(self, store: Any, in_flight: bool = False) -> None:
        """This worker's rows, by stream, for whoever holds the streams next: as they were
        after the last step the group completed (the others redo the step under way), and with
        ``in_flight`` (a worker leaving in the middle of a step its gradients are in) also as
        they are after the step under way (the others finish it)."""
        step = self.loader.job.position.step
        if self._done is not None:
            self._publish_rows(store, step, *self._done)
        if in_flight and self._pending is not None:
            streams, _, value = self._pending
            self._publish_rows(store, step + 1, streams, value)

    def _publish_rows(self, store: Any, step: int, streams: tuple[int, ...], value: Any) -> None:
        rows = {s: [leaf.detach().narrow(self.dim, i, 1).cpu().clone() for leaf in _leaves(value)]
                for i, s in enumerate(streams)}
        key = f"streams/{step}"
        slot = store.count(f"{key}/published", 1)
        store.store.set(f"{key}/{slot}", pickle.dumps(rows))

    def _gather(self, streams: tuple[int, ...]) -> Any:
        job = self.loader.job
        fresh = self.init(len(streams))
        leaves = _leaves(fresh)
        key, found, read = f"streams/{job.position.step}", {}, 0
        deadline = time.monotonic() + 2.0  # a leaver publishes as it reads the plan
        while True:
            published = job._store.count(f"{key}/published") if job._store is not None else 0
            for slot in range(read + 1, published + 1):
                found.update(pickle.loads(job._store.store.get(f"{key}/{slot}")))
            read = published
            if all(s in found for s in streams) or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        lost = [s for s in streams if s not in found]
        if lost:
            say(f"the state of stream(s) {lost} was lost with its worker: they start afresh")
        with torch.no_grad():
            for i, s in enumerate(streams):
                for leaf, row in zip(leaves, found.get(s, [])):
                    leaf.narrow(self.dim, i, 1).copy_(row.to(leaf.device))
        self._done = (streams, fresh)
        return fresh
