"""The home mode (GAPTRAIN_HOME_MODE=1) with real processes and torch.distributed (gloo) on this
machine: the store served by gaptrain.store_host on the "home" node, which never trains; every
training node may leave, rank 0's too; a job with no node left pauses with a checkpoint and
resumes from it when nodes come back, as if it had never stopped."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from fake_launch import HERE, FakeJob
from gaptrain.jobfile import EXIT_LEFT as LEFT
from test_regroup import (EPOCHS, SAMPLES, assert_every_sample_once_per_epoch, assert_same_model_on_every_rank,
                          final_model)


def home_job(tmp_path: Path, *extra: str) -> FakeJob:
    """No checkpoint but the pause's and the end's: a resume finds only what the pause saved."""
    return FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                              "--samples", str(SAMPLES), "--epochs", str(EPOCHS),
                              "--checkpoint-every-s", "100000", *extra], home=True)


def rank_zero_at(job: FakeJob, world: int) -> str:
    """The node of rank 0 at the newest step logged at world size ``world``."""
    lines = [line for line in job.steps_logged() if line["world"] == world and line["rank"] == 0]
    return max(lines, key=lambda line: line["step"])["node"]


def last_checksum(job: FakeJob) -> float:
    return max(job.steps_logged(), key=lambda line: line["step"])["checksum"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> float:
    """The model after the same training on one worker in today's mode, never stopped."""
    return final_model(tmp_path_factory.mktemp("uninterrupted") / "run", ["n1"])


def test_home_grow_lose_rank_0_pause_and_resume(tmp_path: Path, uninterrupted: float) -> None:
    """Started, grown, rank 0's node drained (the others regroup in-process under a new rank 0),
    every node drained (one member saves the checkpoint and posts the pause), nodes given again
    (one resumes from the checkpoint, the other is taken in): every sample once per epoch, the
    same model on every rank, and the model of an uninterrupted run. A worker that leaves ends
    with 77 (its node goes; gaptrain-launch drops it), never 0 (the training's end)."""
    job = home_job(tmp_path)
    try:
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        job.wait_for_world(2)
        # The newcomer first in the job file: rank 0 stays one that holds the training's state.
        job.write_job_file(["n3", "n1", "n2"])
        job.start("n3")
        job.wait_for_world(3)
        # Rank 0's own line: each rank logs its step when it ends it, rank 0's not always first.
        job.wait_for(lambda: any(line["world"] == 3 and line["rank"] == 0 for line in job.steps_logged()),
                     what="rank 0's step at world size 3")
        first = rank_zero_at(job, 3)
        assert first != "n3"
        others = [node for node in ("n3", "n1", "n2") if node != first]
        job.write_job_file(others, leaving=[first])  # rank 0's node given back: the job file alone
        job.wait_for(lambda: job.live(first) is None, what=f"{first}'s worker to leave")
        assert job.procs[first][0].returncode == LEFT, job.outputs()
        job.write_job_file(others)  # its step ended: the launcher drops it from leaving
        grown = max(line["step"] for line in job.steps_logged() if line["world"] == 3)
        job.wait_for(lambda: any(line["world"] == 2 and line["rank"] == 0 and line["step"] > grown
                                 for line in job.steps_logged()),
                     what="rank 0's step at world size 2 after the drain")
        assert rank_zero_at(job, 2) in others
        job.write_job_file([], leaving=others)  # every node given back: the job pauses
        job.wait_for(lambda: all(job.live(node) is None for node in others), what="every worker to leave")
        assert {job.procs[node][-1].returncode for node in others} == {LEFT}, job.outputs()
        job.write_job_file([])
        paused = job.outputs()
        assert paused.count("the job pauses") == 1, paused  # one member saved the checkpoint
        assert "the next nodes resume from the checkpoint" in paused, paused
        job.write_job_file(["n4", first])  # nodes again: a new one, and one given before
        job.full_speed()
        job.start("n4")
        job.start(first)
        statuses = job.finish()
        assert statuses == {first: 0, "n4": 0, **{node: LEFT for node in others}}, job.outputs()
        assert job.stop_store_host() == 0
    finally:
        job.kill()
    out = job.outputs()
    for node in others:
        assert len(job.procs[node]) == 1, out  # nobody restarted: rank 0's leave was regrouped in-process
    assert "resumed from the checkpoint" in out, out
    assert "did not form" not in out and "Traceback" not in out and "did not answer" not in out, out
    assert_every_sample_once_per_epoch(job)
    assert_same_model_on_every_rank(job)
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
    assert last_checksum(job) == pytest.approx(uninterrupted, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("when", ["before", "after", "long after"])
def test_home_sigterm_to_every_worker_mid_step_pauses_at_the_last_completed_step(
        tmp_path: Path, uninterrupted: float, when: str) -> None:
    """Slurm preempts every training node at once (GraceTime: SIGTERM to every worker in the
    middle of a step, the job file unchanged), "before" the step's all-reduce (a step of 3 s,
    longer than the worker may take to leave: it is abandoned) or "after" it (the step's
    collectives are behind it: the worker waits for the step's end, and it counts). Each worker
    ends with status 77; exactly one saves the state of the last completed step and posts the
    pause. The next workers resume from it: nothing lost, repeated or counted twice. "long
    after": the step's end is too far (its optimizer stepped, its state half-way): the pause is
    posted without a checkpoint, and the next workers train from the one before (here, from the
    start: the samples of the steps before the pause are trained again)."""
    timing = {"before": ["--step-sleep", "3"],
              "after": ["--step-sleep", "0", "--after-step-sleep", "2", "--leave-within-s", "1.5"],
              "long after": ["--step-sleep", "0", "--after-step-sleep", "3"]}[when]
    job = home_job(tmp_path, *timing)
    try:
        job.write_job_file(["n1", "n2", "n3"])
        for node in ("n1", "n2", "n3"):
            job.start(node)
        job.wait_for_world(3)
        # Rank 0's own line: each rank logs its step when it ends it, rank 0's not always first.
        job.wait_for(lambda: any(line["world"] == 3 and line["rank"] == 0 for line in job.steps_logged()),
                     what="rank 0's step at world size 3")
        if when != "before":  # every worker logged the step: it sleeps past its all-reduce now
            step = max(line["step"] for line in job.steps_logged())
            job.wait_for(lambda: sum(line["step"] == step for line in job.steps_logged()) == 3,
                         what=f"step {step} logged by every worker")
        for node in ("n1", "n2", "n3"):
            job.live(node).send_signal(signal.SIGTERM)
        job.wait_for(lambda: all(job.live(node) is None for node in ("n1", "n2", "n3")),
                     timeout_s=20.0, what="every worker to leave")
        assert {job.procs[node][0].returncode for node in ("n1", "n2", "n3")} == {LEFT}, job.outputs()
        completed = max(line["step"] for line in job.steps_logged())
        paused = job.outputs()
        assert paused.count("the job pauses") == 1, paused
        if when == "long after":
            assert "the job pauses without a checkpoint" in paused, paused
            for log in tmp_path.glob("log.*"):  # the steps trained again are logged again
                log.unlink()
        job.write_job_file([])  # the launcher saw the steps end
        job.full_speed()
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        statuses = job.finish()
        assert statuses == {"n1": 0, "n2": 0, "n3": LEFT}, job.outputs()
    finally:
        job.kill()
    out = job.outputs()
    if when == "long after":
        assert out.count("no checkpoint: training from the start") == 2, out  # at the start, and after
    else:
        assert f"checkpoint saved at step {completed} (every node leaves: the job pauses)" in out, out
        assert f"resumed from the checkpoint: step {completed}," in out, out
    assert "Traceback" not in out, out
    assert_every_sample_once_per_epoch(job)
    assert_same_model_on_every_rank(job)
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
    assert last_checksum(job) == pytest.approx(uninterrupted, rel=1e-5, abs=1e-5)


def test_home_torchrun_agents_follow_a_leave_of_the_first_node_and_a_pause(tmp_path: Path) -> None:
    """`gaptrain submit --torchrun` in the home mode: every agent is a client of the store host's
    rendezvous. The first node leaves (today's batch host never does), then the last one (the
    job pauses), then a new node resumes from the script's own checkpoint; the progress never
    goes back and every epoch is trained."""
    pytest.importorskip("sklearn")
    epochs, digits = 4, 1797
    examples = HERE.parents[1] / "examples" / "pytorch-elastic"
    job = FakeJob(tmp_path, ["-m", "gaptrain.torchrun", str(examples / "train_digits.py"),
                             "--checkpoint", str(tmp_path / "ckpt"), "--epochs", str(epochs),
                             "--checkpoint-every-steps", "10", "--step-sleep", "0.05"],
                  min_nodes=1, max_nodes=2, home=True)
    try:
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        job.wait_for_world(2, timeout_s=120)
        job.wait_for(lambda: "checkpoint saved" in (tmp_path / "out.n1").read_text(), what="n1's checkpoint")
        job.write_job_file(["n2"], leaving=["n1"])
        job.live("n1").send_signal(signal.SIGTERM)  # as gaptrain-launch stops a node given back
        job.wait_for_world(1, timeout_s=120)
        job.wait_for(lambda: "checkpoint saved" in (tmp_path / "out.n2").read_text(), what="n2's checkpoint")
        job.write_job_file([], leaving=["n2"])
        job.live("n2").send_signal(signal.SIGTERM)
        job.wait_for(lambda: job.live("n2") is None, what="n2's agent to stop")
        job.write_job_file(["n3"])
        job.start("n3")
        statuses = job.finish(timeout_s=300)
        assert statuses == {"n1": LEFT, "n2": LEFT, "n3": 0}, job.outputs()
    finally:
        job.kill()
    done_series = [line["samples_done"] for line in job.progress_lines()]
    assert done_series == sorted(done_series), "progress went back after a restart"
    assert done_series[-1] == epochs * digits
    assert "started under torchrun: 2 worker(s)" in job.outputs()
    for node in ("n2", "n3"):  # each resumed from the checkpoint before it
        assert "resumed from the checkpoint" in (tmp_path / f"out.{node}").read_text(), job.outputs()


def test_home_a_store_host_started_again_resumes_from_the_checkpoint(tmp_path: Path) -> None:
    """The store host dies (its contents with it) and gaptrain-launch starts it again: the
    workers, whose connections broke, exit 75; started again, they find no plan, and one
    resumes from the checkpoint."""
    job = home_job(tmp_path, "--checkpoint-every-s", "0.5")
    try:
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        job.wait_for_world(2)
        job.wait_for(lambda: "checkpoint saved" in job.outputs(), what="a first checkpoint")
        job.store_hosts[-1].kill()
        job.wait_for(lambda: job.live("n1") is None and job.live("n2") is None, what="the workers to give up")
        assert [job.procs[node][0].returncode for node in ("n1", "n2")] == [75, 75], job.outputs()
        job.start_store_host()
        job.full_speed()
        job.start("n1")
        job.start("n2")
        statuses = job.finish()
        assert statuses == {"n1": 0, "n2": 0}, job.outputs()
    finally:
        job.kill()
    out = job.outputs()
    assert out.count("restarting from the checkpoint") == 2, out
    assert "resumed from the checkpoint" in out, out
    assert_same_model_on_every_rank(job)
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
