"""The elastic job across resizes, with real processes and torch.distributed (gloo) on this
machine: the data position is exact, every rank holds the same model and the same carried state
(a scheduler's count, a dict), a lost store falls back to the checkpoint."""
from __future__ import annotations

import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from fake_launch import HERE, FakeJob

SAMPLES, EPOCHS = 960, 2


@pytest.fixture
def job(tmp_path: Path, request):
    order = getattr(request, "param", "shuffle")
    # In order "streams", batches come from a DataLoader with 2 worker processes of its own, and
    # a state per stream counts its windows.
    streams = ["--loader-workers", "2", "--stream-state"] if order == "streams" else []
    j = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                           "--samples", str(SAMPLES), "--epochs", str(EPOCHS), "--order", order, *streams])
    yield j
    j.kill()


def assert_every_sample_once_per_epoch(job: FakeJob) -> None:
    for epoch in range(EPOCHS):
        seen = Counter(i for line in job.steps_logged() if line["epoch"] == epoch for i in line["indices"])
        assert sorted(seen) == list(range(SAMPLES)), f"epoch {epoch}: samples missing"
        repeated = {i: c for i, c in seen.items() if c > 1}
        assert not repeated, f"epoch {epoch}: samples trained more than once: {repeated}"


def assert_each_stream_state_carried(job: FakeJob, streams: int = 8) -> None:
    """Order streams: window k of a stream (its sample s * L + k) is the (k+1)-th its state
    counted, whichever workers held the stream before."""
    length = SAMPLES // streams
    pairs = [(i, c) for line in job.steps_logged() for i, c in zip(line["indices"], line["stream_counts"])]
    assert pairs, "no stream state logged"
    wrong = [(i, c) for i, c in pairs if c != i % length + 1]
    assert not wrong, f"stream states not carried (index, count): {wrong[:10]}"


def assert_same_model_on_every_rank(job: FakeJob) -> None:
    by_step: dict[int, set[tuple]] = {}
    for line in job.steps_logged():
        by_step.setdefault(line["step"], set()).add(
            (round(line["checksum"], 9), line["scheduler_steps"], line["stats_steps"]))
    differing = {step: sums for step, sums in by_step.items() if len(sums) > 1}
    assert not differing, f"ranks disagree on the model or carried state after steps {sorted(differing)[:5]}"
    for line in job.steps_logged():  # nothing lost or counted twice by a regroup or a redone step
        assert line["scheduler_steps"] == line["stats_steps"] == line["step"], line


@pytest.mark.parametrize("job", ["shuffle", "streams"], indirect=True)
def test_grow_and_shrink_in_process(job: FakeJob) -> None:
    job.write_job_file(["n1", "n2"])
    job.start("n1")
    job.start("n2")
    job.wait_for_world(2)
    job.write_job_file(["n1", "n2", "n3"])  # a grow: n3's worker starts, the others keep going
    job.start("n3")
    job.wait_for_world(3)
    job.write_job_file(["n1", "n3"], leaving=["n2"])  # a shrink: n2 is told, then stopped
    job.live("n2").send_signal(signal.SIGTERM)
    job.wait_for_world(2)
    job.wait_for(lambda: job.live("n2") is None, what="n2's worker to leave")
    job.write_job_file(["n1", "n3", "n2"])  # n2 again: a new process, a new token
    job.start("n2")
    job.wait_for_world(3)
    job.full_speed()
    statuses = job.finish()
    assert statuses == {"n1": 0, "n2": 0, "n3": 0}, job.outputs()
    assert len(job.procs["n1"]) == 1 and len(job.procs["n3"]) == 1  # nobody restarted
    assert len(job.procs["n2"]) == 2
    # A node's earlier process is not taken for its new one (it was, and the group timed out).
    assert "did not form" not in job.outputs(), job.outputs()
    assert_every_sample_once_per_epoch(job)
    assert_same_model_on_every_rank(job)
    if "--stream-state" in job.argv:
        assert_each_stream_state_carried(job)
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
    worlds = [line["world"] for line in job.steps_logged()]
    assert {1, 2, 3} & set(worlds) >= {2, 3}


@pytest.mark.parametrize("home", [False, True], ids=["today", "home"])
def test_a_regroup_at_an_epochs_end_waits_for_the_code_after_the_loop(tmp_path: Path, home: bool) -> None:
    """Epochs of one step each, so every resize lands on an epoch's end, followed by an
    evaluation's collective: the group that trained the epoch evaluates it (a newcomer joins at
    the next epoch's first step, a leaver leaves after it), and nobody's collectives mismatch."""
    job = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                             "--samples", "8", "--batch-size", "8", "--epochs", "60", "--evaluate"], home=home)
    try:
        job.write_job_file(["n1"])
        job.start("n1")
        job.wait_for_world(1)
        job.write_job_file(["n1", "n2", "n3"])
        job.start("n2")
        job.start("n3")
        job.wait_for_world(3)
        job.write_job_file(["n1", "n2"], leaving=["n3"])
        job.wait_for_world(2)
        job.full_speed()
        statuses = job.finish()
        # Home mode: a leaver's 77 tells gaptrain-launch its node goes (not the training's end).
        assert statuses == {"n1": 0, "n2": 0, "n3": 77 if home else 0}, job.outputs()
    finally:
        job.kill()
    out = job.outputs()
    assert "Traceback" not in out and "restarting from the checkpoint" not in out, out
    evaluations = job.evaluations_logged()
    assert {line["world"] for line in evaluations} == {1, 2, 3}, evaluations
    for epoch in range(60):  # each epoch evaluated by the group that trained it, once per member
        trained = {line["world"] for line in job.steps_logged() if line["epoch"] == epoch}
        by = [line for line in evaluations if line["evaluated"] == epoch]
        assert len(trained) == 1 and len(by) == trained.pop(), (epoch, by)
        assert all(line["workers"] == len(by) for line in by), (epoch, by)


def test_a_killed_worker_is_regrouped_around(job: FakeJob) -> None:
    job.write_job_file(["n1", "n2", "n3"])
    for node in ("n1", "n2", "n3"):
        job.start(node)
    job.wait_for_world(3)
    job.live("n3").kill()  # no notice, no SIGTERM: its node failed
    job.write_job_file(["n1", "n2"])
    job.wait_for_world(2)
    job.full_speed()
    statuses = job.finish()
    assert statuses["n1"] == 0 and statuses["n2"] == 0, job.outputs()
    assert_same_model_on_every_rank(job)
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS


def test_a_lost_store_falls_back_to_the_checkpoint(job: FakeJob) -> None:
    job.write_job_file(["n1", "n2"])
    job.start("n1")
    job.start("n2")
    job.wait_for_world(2)
    job.wait_for(lambda: (job.tmp / "ckpt" / "gaptrain-state.pt").exists() or
                 job.procs["n1"][0].poll() is not None, what="a first checkpoint")
    job.live("n1").kill()  # rank 0's process, and the store with it
    job.wait_for(lambda: job.procs["n2"][0].poll() is not None, what="n2 to give up the lost store")
    assert job.procs["n2"][0].returncode == 75, job.outputs()
    assert "restarting from the checkpoint" in job.outputs()
    job.start("n1")  # what gaptrain-launch does
    job.start("n2")
    job.full_speed()
    statuses = job.finish()
    assert statuses == {"n1": 0, "n2": 0}, job.outputs()
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS


def test_the_global_batch_and_learning_rate_follow_gaptrainds_choice(tmp_path: Path) -> None:
    """A job with a batch range: gaptraind's global batch is split over the workers there are
    (with accumulation when a share exceeds a micro-step), the learning rate scaled (linear rule
    here, so the factor is known), the gradients' noise reported; no sample lost or repeated."""
    job = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                             "--samples", str(SAMPLES), "--epochs", str(EPOCHS), "--lr-rule", "linear",
                             "--lr", "0.001"])
    try:
        job.batch = {"tuned": 8, "global": 16, "per_node": 4, "accumulation": 2, "lr_gain": 1.5}
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        job.wait_for(lambda: any(entry.get("global_batch") == 16 for entry in job.progress_lines()),
                     what="global batch 16")
        job.batch = {"tuned": 8, "global": 32, "per_node": 8, "accumulation": 1, "lr_gain": 2.0}
        job.write_job_file(["n1", "n2", "n3"])
        job.start("n3")
        job.wait_for_world(3)
        job.wait_for(lambda: any(entry.get("global_batch") == 32 for entry in job.progress_lines()),
                     what="global batch 32")
        job.full_speed()
        statuses = job.finish()
        assert statuses == {"n1": 0, "n2": 0, "n3": 0}, job.outputs()
        assert ("batch: global 16 (up to 4 a worker x 2 micro-step(s) x 2 worker(s)), learning rate x 2.00 "
                "(linear): gaptraind's choice") in job.outputs()
        # 32 over 3 workers: 11, 11, 10 samples, each in 2 micro-batches of at most 8.
        assert "batch: global 32 (up to 6 a worker x 2 micro-step(s) x 3 worker(s))" in job.outputs()
        factors = {entry["lr_factor"] for entry in job.steps_logged()
                   if entry["global_batch"] == 32 and entry["world"] == 3}
        assert factors == {32 / 8}
        assert_every_sample_once_per_epoch(job)
        assert_same_model_on_every_rank(job)
        assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
        noisy = [entry for entry in job.progress_lines() if "grad_sqr" in entry]
        assert noisy and all(entry["grad_sqr"] > 0 and entry["grad_var"] > 0 for entry in noisy)
    finally:
        job.kill()


def test_a_requeue_stops_every_worker_quietly(job: FakeJob) -> None:
    """The batch host needed by a regular job: gaptrain-launch empties the job's nodes, then
    SIGTERMs every step. Every worker ends cleanly, rank 0 with a checkpoint, no traceback."""
    job.write_job_file(["n1", "n2"])
    job.start("n1")
    job.start("n2")
    job.wait_for_world(2)
    job.write_job_file([], leaving=["n1", "n2"])
    time.sleep(1.0)  # the workers read the emptied job file before the signal (and may leave)
    for node in ("n1", "n2"):
        if (live := job.live(node)) is not None:
            live.send_signal(signal.SIGTERM)
    statuses = job.finish()
    assert statuses == {"n1": 0, "n2": 0}, job.outputs()
    assert "Traceback" not in job.outputs(), job.outputs()
    assert "checkpoint saved" in job.outputs(), job.outputs()


@pytest.mark.parametrize("order", ["shuffle", "streams"])
def test_a_leaving_worker_abandons_a_step_it_cannot_finish_in_time(tmp_path: Path, order: str) -> None:
    """A reclaim during steps of 3 s (longer than the worker may take to leave): the leaver
    abandons its step and ends with status 0, saying so quietly; the others see the group break,
    regroup without waiting for it (it said it left), redo that one step, and nothing is lost,
    repeated or counted twice (the scheduler's count included; in order streams, the leaver's
    streams' states as they were before the abandoned step)."""
    streams = ["--order", "streams", "--stream-state"] if order == "streams" else []
    job = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                             "--samples", str(SAMPLES), "--epochs", str(EPOCHS), "--step-sleep", "3", *streams])
    try:
        job.write_job_file(["n1", "n2", "n3"])
        for node in ("n1", "n2", "n3"):
            job.start(node)
        job.wait_for_world(3)
        job.wait_for(lambda: any(entry["world"] == 3 for entry in job.steps_logged()), what="a step at world size 3")
        job.write_job_file(["n1", "n2"], leaving=["n3"])  # no SIGTERM: the job file alone
        job.wait_for(lambda: job.live("n3") is None, what="n3's worker to leave")
        assert job.procs["n3"][0].returncode == 0, job.outputs()
        job.wait_for_world(2)
        job.full_speed()
        statuses = job.finish()
        assert statuses == {"n1": 0, "n2": 0, "n3": 0}, job.outputs()
    finally:
        job.kill()
    out = job.outputs()
    assert "n3 left the job during step" in out, out
    assert "redoing it after the regroup" in out, out
    assert "did not answer" not in out and "did not form" not in out, out
    assert "Traceback" not in out, out
    assert_every_sample_once_per_epoch(job)
    assert_same_model_on_every_rank(job)
    if streams:
        assert_each_stream_state_carried(job)
        assert "start afresh" not in out, out
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS


def final_model(tmp_path: Path, nodes: list[str], *extra: str) -> float:
    tmp_path.mkdir()
    job = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                             "--samples", str(SAMPLES), "--epochs", str(EPOCHS), *extra])
    try:
        job.full_speed()
        job.write_job_file(nodes)
        for node in nodes:
            job.start(node)
        assert set(job.finish().values()) == {0}, job.outputs()
    finally:
        job.kill()
    assert f"started on {','.join(nodes)}" in job.outputs(), job.outputs()
    last = max(job.steps_logged(), key=lambda line: line["step"])
    return last["checksum"]


def test_the_global_batch_trains_the_same_model_on_any_number_of_workers(tmp_path: Path) -> None:
    """The user's global batch of 8 on 1 worker and on 3 (3, 3 and 2 samples a step): the same
    model after 240 steps, up to the order of float additions; also when a step's gradients are
    averaged twice (a second backward pass: what one pass averaged stays as it is)."""
    alone = final_model(tmp_path / "one", ["n1"])
    three = final_model(tmp_path / "three", ["n1", "n2", "n3"], "--extra-backward")
    assert three == pytest.approx(alone, rel=1e-5, abs=1e-5)


def test_autocast_a_scaler_and_clipping_train_the_same_on_any_number_of_workers(tmp_path: Path) -> None:
    """The loop of an AMP script (bfloat16 autocast on the CPU, a GradScaler carried, the
    gradients unscaled and clipped before the step) on 1 worker and on 2."""
    alone = final_model(tmp_path / "one", ["n1"], "--amp")
    two = final_model(tmp_path / "two", ["n1", "n2"], "--amp")
    assert two == pytest.approx(alone, rel=1e-3)
