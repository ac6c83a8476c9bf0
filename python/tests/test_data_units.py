"""The data a step trains across changes of the world size (data.py), the batch split, and the
step's all-reduce (gradients.py) in-process with gloo."""
from __future__ import annotations

import pickle
import random
import warnings
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from gaptrain.carried import RandomState, check_carriable, load_state, state_of
from gaptrain.data import StepPlanner, even_part, micro_steps
from gaptrain.gradients import all_reduce_step


def train_epoch_with_resizes(order: str, size: int, batch: int, worlds: list[int], holds: int | None = None):
    """Steps through one epoch, the world size changing after every step to the next of
    ``worlds`` (round robin); yields (step, rank, world, micro-batch) of every rank."""
    planner = StepPlanner(order, size, batch, seed=5, epoch=3, worker_holds=holds)
    offset, step = 0, 0
    while offset < planner.total:
        world = worlds[step % len(worlds)]
        for rank in range(world):
            for micro in planner.step(offset, rank, world):
                yield step, rank, world, micro
        offset += planner.step_samples(offset)
        step += 1


@pytest.mark.parametrize("order", ["shuffle", "sequential", "streams"])
@pytest.mark.parametrize("holds", [None, 3])
def test_every_sample_once_per_epoch_whatever_the_world_sizes(order: str, holds: int | None) -> None:
    size, batch = 103, 10
    seen = Counter()
    for _, _, _, micro in train_epoch_with_resizes(order, size, batch, [1, 3, 4, 2, 7, 11], holds):
        seen.update(micro.indices if micro.weight else [])
        assert micro.weight in (0, len(micro.indices))
        assert holds is None or len(micro.indices) <= holds
    expected = range(size) if order != "streams" else range((size // batch) * batch)
    assert sorted(seen) == list(expected) and max(seen.values()) == 1


def test_a_step_is_the_global_batch_at_every_world_size() -> None:
    planner = StepPlanner("shuffle", 1000, 64, seed=0, epoch=0)
    one = sorted(planner.step(128, 0, 1)[0].indices)
    for world in (2, 3, 5, 64, 100):
        parts = [m for rank in range(world) for m in planner.step(128, rank, world)]
        assert sorted(i for m in parts if m.weight for i in m.indices) == one
        assert {m.step_samples for m in parts} == {64}
        sizes = [m.weight for m in parts]
        assert max(sizes) - min(sizes) <= 1  # the remainder goes to the first ranks, one each


def test_a_worker_without_a_sample_gets_a_stand_in_of_weight_zero() -> None:
    planner = StepPlanner("sequential", 10, 4, seed=0, epoch=0)
    last = [planner.step(8, rank, 4)[0] for rank in range(4)]  # 2 samples left, 4 workers
    assert [m.weight for m in last] == [1, 1, 0, 0]
    assert all(len(m.indices) == 1 for m in last)


def test_streams_continue_on_whichever_worker_holds_them() -> None:
    """Each stream's samples come in order, one a step, whoever holds the stream; a worker's
    streams are a contiguous range, in order."""
    size, streams = 60, 6
    last_of: dict[int, int] = {}
    for _, rank, world, micro in train_epoch_with_resizes("streams", size, streams, [2, 4, 1, 3]):
        assert list(micro.streams) == list(even_part(streams, rank, world))
        for stream, index in zip(micro.streams, micro.indices):
            assert index == last_of.get(stream, stream * (size // streams) - 1) + 1
            last_of[stream] = index


def test_micro_steps_keep_each_part_within_what_a_worker_holds() -> None:
    for samples in range(1, 90, 7):
        for world in range(1, 6):
            for holds in (1, 4, 16):
                count = micro_steps(samples, world, holds)
                largest = -(-samples // world)
                assert -(-largest // count) <= holds
                assert count == 1 or -(-largest // (count - 1)) > holds  # the fewest


def test_bad_orders_and_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="order"):
        StepPlanner("random", 10, 2, 0, 0)
    with pytest.raises(ValueError, match="streams"):
        StepPlanner("streams", 3, 4, 0, 0)


@pytest.fixture
def gloo_alone(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_sample_counts_are_exact_with_half_precision_gradients(gloo_alone, dtype: torch.dtype) -> None:
    """float16 holds integers exactly only to 2048, bfloat16 to 256: a step's 4097 samples
    must still be counted as 4097."""
    p = torch.nn.Parameter(torch.zeros(4, dtype=dtype))
    p.grad = torch.full((4,), 0.5, dtype=dtype)
    sums, _ = all_reduce_step([p], [4097.0, 1.0, 0.0])
    assert sums[:2] == [4097.0, 1.0]
    assert p.grad.dtype == dtype
    assert torch.allclose(p.grad.float(), torch.full((4,), 0.5), rtol=1e-2)


def test_carried_state_is_put_back_in_place() -> None:
    best = {"loss": 1.5}
    history = [1, 2]
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    saved = {name: state_of(obj) for name, obj in
             (("best", best), ("history", history), ("scheduler", scheduler))}
    best["loss"], history[:] = 0.3, [9]
    opt.step()
    scheduler.step()
    for name, obj in (("best", best), ("history", history), ("scheduler", scheduler)):
        load_state(obj, saved[name])
    assert best == {"loss": 1.5} and history == [1, 2] and scheduler.last_epoch == 0
    with pytest.raises(TypeError, match="keep it in a dict"):
        check_carriable("best", 1.5)
    scaler = torch.cuda.amp.GradScaler(enabled=False)  # CPU: a disabled scaler's empty state
    load_state(scaler, state_of(scaler))


@pytest.mark.parametrize("scheduler_made", ["before carry()", "after carry()"])
def test_a_scheduler_counts_the_carried_optimizers_steps_without_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler_made: str) -> None:
    """carry() replaces the optimizer's step; a scheduler made before it had wrapped the step
    and warned, at its first step, that the step "has been overridden after learning rate
    scheduler initialization" (once per worker, every run of a typical script)."""
    from gaptrain import ElasticJob

    for name, value in {"GAPTRAIN_MASTER_ADDR": "n1", "GAPTRAIN_JOB_ID": "7",
                        "SLURMD_NODENAME": "n1", "GAPTRAIN_JOB_FILE": str(tmp_path / "job.json")}.items():
        monkeypatch.setenv(name, value)
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    job = ElasticJob(str(tmp_path / "ckpt"))
    if scheduler_made == "before carry()":
        scheduler = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    job.carry(model=model, optimizer=opt)
    if scheduler_made == "after carry()":
        scheduler = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            model(torch.ones(2)).sum().backward()
            opt.step()
            scheduler.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**3)


def test_random_state_round_trips() -> None:
    rng = RandomState()
    state = rng.state_dict()
    drawn = (torch.rand(3), random.random())
    rng.load_state_dict(state)
    assert torch.equal(torch.rand(3), drawn[0]) and random.random() == drawn[1]


class DictStore:
    """JobStore's count and store.set, in a dict."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.store = self

    def count(self, key: str, by: int = 0) -> int:
        self.values[key] = int(self.values.get(key, 0)) + by  # type: ignore[call-overload]
        return int(self.values[key])  # type: ignore[call-overload]

    def set(self, key: str, value: bytes) -> None:
        self.values[key] = value


def test_a_worker_leaving_after_its_gradients_were_averaged_publishes_its_streams_for_both_outcomes() -> None:
    """The others redo the step (they read the rows under the last completed step's number) or
    finish it without the leaver (under the next one): both find the leaver's streams."""
    from gaptrain.streams import StreamState

    job = SimpleNamespace(position=SimpleNamespace(step=4))
    loader = SimpleNamespace(job=job, streams=(2, 3))
    state = StreamState(loader, lambda n: torch.zeros(n, 1), dim=0)
    state._done = ((2, 3), torch.tensor([[1.0], [2.0]]))  # after step 4
    state.set(torch.tensor([[5.0], [6.0]]))  # step 5's forward pass

    def rows(store: DictStore, step: int) -> dict[int, float]:
        published = pickle.loads(store.values[f"streams/{step}/1"])  # type: ignore[arg-type]
        return {stream: float(leaves[0]) for stream, leaves in published.items()}

    in_flight = DictStore()
    state.publish(in_flight, in_flight=True)
    assert rows(in_flight, 4) == {2: 1.0, 3: 2.0} and rows(in_flight, 5) == {2: 5.0, 3: 6.0}
    before_its_gradients = DictStore()
    state.publish(before_its_gradients)
    assert rows(before_its_gradients, 4) == {2: 1.0, 3: 2.0}
    assert "streams/5/published" not in before_its_gradients.values
