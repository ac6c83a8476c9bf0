"""gaptrain.torchrun's guards: restarts bounded unless a resize explains them, and a warning
when the workers are independent copies. Real processes: torchrun's own agent on one "node"
(this machine, the job file written as gaptrain-launch writes it) and workers run as the agent
runs them."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from gaptrain.jobfile import EXIT_LEFT
from gaptrain.torchrun import (EXIT_FAILED_FOR_GOOD, GroupWatch, RestartBudget, job_nodes,
                               stopped_by_signal, torchrun_arguments)
from gaptrain.jobfile import LaunchContext

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def test_failures_without_a_resize_give_up_after_the_budget() -> None:
    budget = RestartBudget(max_restarts=3, stable_s=300)
    nodes = (("n1", "n2"), ())
    verdicts = []
    for attempt in range(4):
        budget.started(now=10.0 * attempt, nodes=nodes)
        verdicts.append(budget.failed(now=10.0 * attempt + 5, nodes=nodes))
    assert verdicts == [False, False, False, True]


def test_a_resize_or_a_long_run_starts_the_count_afresh() -> None:
    budget = RestartBudget(max_restarts=1, stable_s=300)
    budget.started(0.0, (("n1", "n2"), ()))
    assert not budget.failed(5.0, (("n1", "n2"), ()))
    budget.started(6.0, (("n1", "n2"), ()))
    assert not budget.failed(9.0, (("n1",), ("n2",)))  # the job shrank meanwhile: not counted
    assert budget.in_a_row == 0
    budget.started(10.0, (("n1",), ()))
    assert not budget.failed(15.0, (("n1",), ()))
    budget.started(16.0, (("n1",), ()))
    assert not budget.failed(400.0, (("n1",), ()))  # ran past stable_s: progress, a fresh count
    budget.started(401.0, (("n1",), ()))
    assert not budget.failed(402.0, (("n1",), ()))
    budget.started(403.0, (("n1",), ()))
    assert budget.failed(404.0, (("n1",), ()))


def test_job_nodes_reads_the_nodes_a_resize_changes(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"job_id": 1, "generation": 2, "nodes": ["n1", "n2"], "leaving": ["n3"]}))
    assert job_nodes(str(path)) == (("n1", "n2"), ("n3",))
    assert job_nodes(str(tmp_path / "missing.json")) is None
    assert job_nodes(None) is None


def test_an_agent_stopped_on_a_leaving_node_left_cleanly(tmp_path: Path, capsys) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"job_id": 1, "generation": 3, "nodes": ["n1"], "leaving": ["n2"]}))
    assert stopped_by_signal(15, "n2", str(path)) == 0
    assert "n2 leaves the job (SIGTERM)" in capsys.readouterr().err
    # Stopped while its node stays (the job cancelled, a signal by hand): not a clean leave.
    assert stopped_by_signal(15, "n1", str(path)) == 128 + 15
    assert "stopped by SIGTERM" in capsys.readouterr().err


def test_in_the_home_mode_an_agent_stopped_by_sigterm_left_because_its_node_goes(tmp_path: Path, capsys) -> None:
    """Slurm's preemption sends SIGTERM before the job file knows: 77, the helper's "left"."""
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"job_id": 1, "generation": 3, "nodes": ["n1"], "leaving": ["n2"]}))
    assert stopped_by_signal(15, "n1", str(path), home_mode=True) == EXIT_LEFT == 77
    assert stopped_by_signal(15, "n2", str(path), home_mode=True) == EXIT_LEFT
    assert "n1 leaves the job (SIGTERM)" in capsys.readouterr().err
    assert stopped_by_signal(2, "n1", str(path), home_mode=True) == 128 + 2  # SIGINT: by hand


def test_the_group_watch_names_copies_and_a_short_group() -> None:
    watch = GroupWatch(expected=4)
    assert "4 independent copies" in (watch.problem() or "")
    watch.formed = 1
    assert "group of 1 where the job has 4" in (watch.problem() or "")
    watch.formed = 4
    assert watch.problem() is None
    assert GroupWatch(expected=1).problem() is None


def test_the_agent_runs_each_worker_through_the_watch() -> None:
    env = {"GAPTRAIN_MASTER_ADDR": "n1", "GAPTRAIN_JOB_ID": "42", "SLURMD_NODENAME": "n1"}
    args = torchrun_arguments(LaunchContext.from_env(env), ["train.py", "--epochs", "3"], env)
    assert args[-6:] == ["-m", "gaptrain.torchrun", "--as-worker", "train.py", "--epochs", "3"]


def run_worker(tmp_path: Path, body: str, world_size: int, rank: int = 0) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    # USE_LIBUV=0: what a worker inherits from the agent where torch lacks libuv (Debian's 2.x;
    # compat.stores_without_libuv_if_missing), and torch 1.13 ignores.
    env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world_size), LOCAL_RANK="0", USE_LIBUV="0",
               PYTHONPATH=str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "gaptrain.torchrun", "--as-worker", str(script), "a1"],
                          env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_a_script_without_a_process_group_is_warned_about(tmp_path: Path) -> None:
    done = run_worker(tmp_path, """
        import sys
        print("args", sys.argv[1:], __name__)
    """, world_size=4)
    assert done.returncode == 0, done.stderr
    assert "args ['a1'] __main__" in done.stdout  # run as `python SCRIPT a1` would
    assert "warning:" in done.stderr and "4 independent copies" in done.stderr
    assert done.stderr.count("warning:") == 1


def test_only_rank_0_warns(tmp_path: Path) -> None:
    # Every other rank ran the script too (it printed the warning at its end, once a worker).
    done = run_worker(tmp_path, "print('copy')\n", world_size=4, rank=1)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr


def test_a_group_smaller_than_the_job_is_warned_about(tmp_path: Path) -> None:
    done = run_worker(tmp_path, f"""
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:{free_port()}", rank=0, world_size=1)
        dist.destroy_process_group()
    """, world_size=2)
    assert done.returncode == 0, done.stderr
    assert "formed a process group of 1 where the job has 2 workers" in done.stderr


def test_a_script_alone_on_its_job_or_in_one_group_is_not_warned_about(tmp_path: Path) -> None:
    alone = run_worker(tmp_path, "print('one worker')\n", world_size=1)
    assert alone.returncode == 0 and "warning" not in alone.stderr, alone.stderr
    # A group of the job's size: WORLD_SIZE 1 with a group of 1 (a second process would need a
    # second worker; the size check is the same).
    grouped = run_worker(tmp_path, f"""
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:{free_port()}", rank=0, world_size=1)
        dist.destroy_process_group()
    """, world_size=1)
    assert grouped.returncode == 0 and "warning" not in grouped.stderr, grouped.stderr


def test_a_script_error_ends_the_worker_as_python_would(tmp_path: Path) -> None:
    done = run_worker(tmp_path, "raise SystemExit(3)\n", world_size=1)
    assert done.returncode == 3
    crash = run_worker(tmp_path, "def f():\n    raise ValueError('bad input')\nf()\n", world_size=4)
    assert crash.returncode == 1
    lines = crash.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and lines[-1] == "ValueError: bad input"
    assert "script.py" in lines[1] and "torchrun.py" not in crash.stderr and "runpy" not in crash.stderr
    assert "warning" not in crash.stderr  # a crash is not called copies: its error says enough


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_deterministic_crash_ends_the_node_failed_for_good_within_the_budget(tmp_path: Path) -> None:
    """torchrun's agent, as gaptrain-launch starts it on a one-node job: the script crashes at
    once, every time; after 1 + GAPTRAIN_MAX_RESTARTS tries the node gives up with 76."""
    (tmp_path / "job.json").write_text(json.dumps(
        {"job_id": 7, "generation": 1, "nodes": ["n1"], "leaving": [], "notice": {},
         "min_nodes": 1, "max_nodes": 1}))
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(f"""
        with open({str(tmp_path / 'tries')!r}, "a") as f:
            f.write("try\\n")
        raise RuntimeError("a deterministic crash")
    """))
    env = dict(os.environ, SLURMD_NODENAME="n1", GAPTRAIN_MASTER_ADDR="n1", GAPTRAIN_JOB_ID="7",
               GAPTRAIN_RDZV_HOST="127.0.0.1", GAPTRAIN_RDZV_PORT=str(free_port()),
               GAPTRAIN_JOB_FILE=str(tmp_path / "job.json"), GAPTRAIN_MIN_NODES="1",
               GAPTRAIN_MAX_NODES="1", GAPTRAIN_MAX_RESTARTS="2", OMP_NUM_THREADS="1",
               PYTHONPATH=str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gaptrain.torchrun", str(script)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == EXIT_FAILED_FOR_GOOD, done.stderr[-3000:]
    assert (tmp_path / "tries").read_text().count("try") == 3
    assert "failed 3 times in a row on n1" in done.stderr and "giving up" in done.stderr
    assert "a deterministic crash" in done.stderr  # the script's own error, in the output
    print(f"gave up after {time.monotonic() - started:.1f} s")
