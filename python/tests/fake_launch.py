"""What gaptrain-launch does for a job, played by the tests without Slurm: one process per
"node" on this machine, the job file rewritten on every change, SIGTERM to a node given back.
In the home mode (``home=True``) the batch script's node is "home", which never trains: the job's
store host runs there before any worker, and every worker is told GAPTRAIN_HOME_MODE=1."""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeJob:
    def __init__(self, tmp: Path, argv: list[str], min_nodes: int = 1, max_nodes: int = 4,
                 home: bool = False) -> None:
        self.tmp, self.argv, self.home = tmp, argv, home
        self.job_file = tmp / "job.json"
        self.progress = tmp / "progress.jsonl"
        self.port = free_port()
        self.store_secret = secrets.token_hex(16)
        self.generation = 0
        self.min_nodes, self.max_nodes = min_nodes, max_nodes
        self.procs: dict[str, list[subprocess.Popen]] = {}
        self.nodes: list[str] = []
        self.notice: dict[str, float] = {}
        self.batch: dict | None = None  # the job file's batch (gaptraind's choice), if any
        self.store_hosts: list[subprocess.Popen] = []  # home mode: the store host, and each restart
        if home:
            self.start_store_host()

    def write_job_file(self, nodes: list[str], leaving: list[str] = ()) -> None:
        self.generation += 1
        self.nodes = list(nodes)
        doc = {"job_id": 7, "generation": self.generation, "nodes": nodes, "leaving": list(leaving),
               "notice": self.notice, "min_nodes": self.min_nodes, "max_nodes": self.max_nodes}
        if self.batch is not None:
            doc["batch"] = self.batch
        tmp = self.job_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, self.job_file)

    def environment(self, node: str) -> dict[str, str]:
        env = dict(os.environ, SLURMD_NODENAME=node, GAPTRAIN_MASTER_ADDR="home" if self.home else "n1",
                   GAPTRAIN_JOB_ID="7", GAPTRAIN_RDZV_HOST="127.0.0.1", GAPTRAIN_RDZV_PORT=str(self.port),
                   GAPTRAIN_STORE_SECRET=self.store_secret,
                   GAPTRAIN_JOB_FILE=str(self.job_file), GAPTRAIN_PROGRESS_FILE=str(self.progress),
                   GAPTRAIN_MIN_NODES=str(self.min_nodes), GAPTRAIN_MAX_NODES=str(self.max_nodes),
                   TOY_LOG=str(self.tmp / "log"), TOY_PACE=str(self.tmp / "pace"), OMP_NUM_THREADS="1",
                   PYTHONFAULTHANDLER="1",  # a worker that hangs prints its threads' stacks on SIGABRT
                   PYTHONPATH=str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        if self.home:
            env["GAPTRAIN_HOME_MODE"] = "1"
        return env

    def start_store_host(self) -> subprocess.Popen:
        """As gaptrain-launch does on the home node: the store host, before any worker; it
        says once that it serves."""
        out = open(self.tmp / "store_host.out", "a")
        proc = subprocess.Popen([sys.executable, "-m", "gaptrain.store_host"], env=self.environment("home"),
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.store_hosts.append(proc)
        self.wait_for(lambda: "serving" in (self.tmp / "store_host.out").read_text() or proc.poll() is not None,
                      30.0, "the store host to serve")
        assert proc.poll() is None, (self.tmp / "store_host.out").read_text()
        return proc

    def stop_store_host(self) -> int:
        """SIGTERM to the store host, as gaptrain-launch at the job's end: its exit status."""
        proc = self.store_hosts[-1]
        proc.send_signal(signal.SIGTERM)
        return proc.wait(30)

    def start(self, node: str) -> subprocess.Popen:
        env = self.environment(node)
        out = open(self.tmp / f"out.{node}", "a")
        # A session of its own: kill() ends what the worker started too (a DataLoader's
        # forkserver outlives a worker killed alone), as Slurm ends a whole step.
        proc = subprocess.Popen([sys.executable, *self.argv], env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs.setdefault(node, []).append(proc)
        return proc

    def live(self, node: str) -> subprocess.Popen | None:
        procs = self.procs.get(node, [])
        return procs[-1] if procs and procs[-1].poll() is None else None

    def full_speed(self) -> None:
        (self.tmp / "pace").touch()

    def progress_lines(self) -> list[dict]:
        if not self.progress.exists():
            return []
        return [json.loads(entry) for entry in self.progress.read_text().splitlines() if entry.strip()]

    def wait_for(self, predicate, timeout_s: float = 60.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}\n" + self.outputs())

    def wait_for_world(self, size: int, timeout_s: float = 60.0) -> None:
        self.wait_for(lambda: self.progress_lines()[-1:] and self.progress_lines()[-1]["world_size"] == size,
                      timeout_s, f"world size {size}")

    def outputs(self) -> str:
        paths = sorted(self.tmp.glob("out.*")) + sorted(self.tmp.glob("store_host.out"))
        return "\n".join(f"--- {p.name}\n{p.read_text()}" for p in paths)

    def finish(self, timeout_s: float = 120.0) -> dict[str, int]:
        """Waits for every process; their exit statuses by node (the last process of each)."""
        deadline = time.monotonic() + timeout_s
        for procs in self.procs.values():
            for proc in procs:
                try:
                    proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.dump_stacks()
                    self.kill()
                    raise AssertionError("a worker did not end\n" + self.outputs())
        return {node: procs[-1].returncode for node, procs in self.procs.items()}

    def dump_stacks(self) -> None:
        """Every live worker prints where each of its threads is (faulthandler, on SIGABRT) into
        its output, for the failure's message."""
        live = [proc for procs in self.procs.values() for proc in procs if proc.poll() is None]
        for proc in live:
            proc.send_signal(signal.SIGABRT)
        for proc in live:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass

    def kill(self) -> None:
        """Ends every worker and whatever each started (its process group), ended or not, and
        the store host."""
        for procs in [*self.procs.values(), self.store_hosts]:
            for proc in procs:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass  # the worker and all it started are gone
                proc.wait()

    def logged(self) -> list[dict]:
        lines = []
        for path in self.tmp.glob("log.*"):
            lines += [json.loads(entry) for entry in path.read_text().splitlines() if entry.strip()]
        return lines

    def steps_logged(self) -> list[dict]:
        return [line for line in self.logged() if "step" in line]

    def evaluations_logged(self) -> list[dict]:
        return [line for line in self.logged() if "evaluated" in line]
