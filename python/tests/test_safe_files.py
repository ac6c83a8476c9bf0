"""The helper's files and other users: checkpoints and progress are written only into files of the
user's own (never through a planted link), and only the user's own checkpoint is loaded, as data.
Tests that give a file to another user (uid 65534) run as root only."""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
import torch

from gaptrain.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from gaptrain.positions import DataPosition
from gaptrain.progress import ProgressWriter
from gaptrain.safe_files import UnsafeFileError, make_own_directory

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")


def a_state() -> dict:
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.ones(4, 3)).sum().backward()
    optimizer.step()
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "position": DataPosition(epoch=1, offset=8, samples_done=40, step=5).as_dict(), "format": 1}


@pytest.fixture
def own_dir(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


def test_a_checkpoint_round_trips_as_data(own_dir: Path) -> None:
    path = str(own_dir / "gaptrain-state.pt")
    assert load_checkpoint(path) is None
    state = a_state()
    save_checkpoint(path, state)
    assert (os.stat(path).st_mode & 0o777) == 0o600
    back = load_checkpoint(path)
    assert back is not None and back["position"] == state["position"]
    assert torch.equal(back["model"]["weight"], state["model"]["weight"])
    assert back["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert [p.name for p in own_dir.iterdir()] == ["gaptrain-state.pt"], "no temporary left"


def test_a_link_planted_at_the_temporary_name_is_not_written_through(own_dir: Path) -> None:
    """The name the helper once wrote to first (PATH.tmp.HOST.PID) was known in advance."""
    victim = own_dir / "model.pt"
    victim.write_bytes(b"weights")
    path = own_dir / "gaptrain-state.pt"
    planted = own_dir / f"gaptrain-state.pt.tmp.{socket.gethostname()}.{os.getpid()}"
    planted.symlink_to(victim)
    save_checkpoint(str(path), a_state())
    assert victim.read_bytes() == b"weights"
    assert planted.is_symlink()


def test_a_link_at_the_checkpoint_is_replaced_not_followed(own_dir: Path) -> None:
    victim = own_dir / "model.pt"
    victim.write_bytes(b"weights")
    path = own_dir / "gaptrain-state.pt"
    path.symlink_to(victim)
    with pytest.raises(UnsafeFileError, match="symbolic link"):
        load_checkpoint(str(path))
    save_checkpoint(str(path), a_state())
    assert victim.read_bytes() == b"weights"
    assert not path.is_symlink()


class _RunsCode:
    """Unpickling it calls open(MARKER, "w"): what a planted checkpoint could do."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_checkpoint_that_would_run_code_is_refused(own_dir: Path) -> None:
    marker = own_dir / "ran"
    path = own_dir / "gaptrain-state.pt"
    torch.save({"model": _RunsCode(str(marker))}, str(path))
    path.chmod(0o600)
    with pytest.raises(CheckpointError, match="Move it away"):
        load_checkpoint(str(path))
    assert not marker.exists(), "the checkpoint ran code as the job's user"


def test_numpy_state_and_globals_the_caller_names_load(own_dir: Path) -> None:
    """NumPy's random state is carried; a class of the caller's is built only when named."""
    numpy = pytest.importorskip("numpy")
    path = own_dir / "gaptrain-state.pt"
    save_checkpoint(str(path), {"numpy": numpy.random.get_state(), "when": _Stamp(3)})
    with pytest.raises(CheckpointError, match=f"{__name__}._Stamp"):
        load_checkpoint(str(path))
    back = load_checkpoint(str(path), also_allowed=[f"{__name__}._Stamp"])
    assert back is not None and back["when"].value == 3
    assert (back["numpy"][1] == numpy.random.get_state()[1]).all() or back["numpy"][0] == "MT19937"


class _Stamp:
    def __init__(self, value: int) -> None:
        self.value = value


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage"])
def test_a_damaged_checkpoint_says_what_to_do(own_dir: Path, damage: str) -> None:
    path = own_dir / "gaptrain-state.pt"
    save_checkpoint(str(path), a_state())
    whole = path.read_bytes()
    path.write_bytes({"truncated": whole[: len(whole) // 2], "empty": b"",
                      "garbage": b"not a checkpoint\n" * 10}[damage])
    with pytest.raises(CheckpointError, match=r"cannot be read .*Move it away to train from the start"):
        load_checkpoint(str(path))


def test_a_checkpoint_others_can_write_is_not_loaded(own_dir: Path) -> None:
    path = own_dir / "gaptrain-state.pt"
    save_checkpoint(str(path), a_state())
    path.chmod(0o666)
    with pytest.raises(UnsafeFileError, match="writable by other users"):
        load_checkpoint(str(path))


def test_a_checkpoint_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UnsafeFileError, match="writable by other users"):
        save_checkpoint(str(shared / "gaptrain-state.pt"), a_state())
    with pytest.raises(UnsafeFileError, match="writable by other users"):
        load_checkpoint(str(shared / "gaptrain-state.pt"))
    with pytest.raises(UnsafeFileError):
        make_own_directory(str(shared))
    make_own_directory(str(tmp_path / "fresh" / "ckpt"))
    assert (os.stat(tmp_path / "fresh" / "ckpt").st_mode & 0o777) == 0o700


@as_root
def test_another_users_checkpoint_and_directory_are_refused(own_dir: Path) -> None:
    """A checkpoint directory another user made first (--checkpoint /tmp/NAME), and a checkpoint
    another user planted, are not used."""
    theirs = own_dir / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(UnsafeFileError, match="not yours"):
        make_own_directory(str(theirs))
    with pytest.raises(UnsafeFileError, match="not yours"):
        load_checkpoint(str(theirs / "gaptrain-state.pt"))
    planted = own_dir / "gaptrain-state.pt"
    torch.save(a_state(), str(planted))
    planted.chmod(0o644)
    os.chown(planted, NOBODY, NOBODY)
    with pytest.raises(UnsafeFileError, match="not yours"):
        load_checkpoint(str(planted))


def written(writer: ProgressWriter, samples: int) -> None:
    writer.write(DataPosition(samples_done=samples, step=samples // 8), world_size=2, rank=0)


def test_progress_goes_into_a_file_of_the_users_own(own_dir: Path) -> None:
    path = own_dir / "progress.jsonl"
    writer = ProgressWriter(str(path))
    written(writer, 64)
    written(writer, 128)
    assert (os.stat(path).st_mode & 0o777) == 0o600
    assert [json.loads(line)["samples_done"] for line in path.read_text().splitlines()] == [64, 128]


def test_a_progress_file_others_can_write_gets_nothing(own_dir: Path, capsys) -> None:
    """Another user's pre-created, world-writable progress file was appended to and read."""
    path = own_dir / "progress.jsonl"
    path.write_text('{"samples_done": 2e12}\n')
    path.chmod(0o666)
    writer = ProgressWriter(str(path))
    for samples in (64, 128, 192):
        written(writer, samples)
    assert path.read_text() == '{"samples_done": 2e12}\n'
    said = capsys.readouterr().err
    assert said.count("not reporting progress") == 1, said
    assert "writable by other users" in said


def test_a_link_at_the_progress_file_is_not_written_through(own_dir: Path) -> None:
    victim = own_dir / "model.pt"
    victim.write_bytes(b"weights")
    path = own_dir / "progress.jsonl"
    path.symlink_to(victim)
    written(ProgressWriter(str(path)), 64)
    assert victim.read_bytes() == b"weights"


def test_a_named_pipe_at_the_progress_file_gets_nothing(own_dir: Path) -> None:
    path = own_dir / "progress.jsonl"
    os.mkfifo(path, 0o600)
    written(ProgressWriter(str(path)), 64)  # neither blocks nor fails the training


@as_root
def test_another_users_progress_file_gets_nothing(own_dir: Path, capsys) -> None:
    """Its fake 2e12 is not taken as the job's progress either: the writer says why it reports
    none, rather than waiting in silence for the training to pass 2e12 samples."""
    path = own_dir / "progress.jsonl"
    path.write_text('{"samples_done": 2e12}\n')
    path.chmod(0o644)
    os.chown(path, NOBODY, NOBODY)
    written(ProgressWriter(str(path)), 64)
    assert path.read_text() == '{"samples_done": 2e12}\n'
    assert "not reporting progress" in capsys.readouterr().err


def test_the_checkpoint_directory_a_job_makes_is_its_own_under_a_group_umask(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clusters often set umask 002 for group projects: the directory ElasticJob makes for its
    checkpoints must still be one save_checkpoint accepts (it was made 0775, then refused)."""
    from gaptrain import ElasticJob

    for name, value in {"GAPTRAIN_MASTER_ADDR": "n1", "GAPTRAIN_JOB_ID": "7",
                        "SLURMD_NODENAME": "n1", "GAPTRAIN_JOB_FILE": str(tmp_path / "job.json")}.items():
        monkeypatch.setenv(name, value)
    ckpt = tmp_path / "ckpt"
    old = os.umask(0o002)
    try:
        ElasticJob(str(ckpt))
    finally:
        os.umask(old)
    assert (ckpt.stat().st_mode & 0o777) == 0o700
    save_checkpoint(str(ckpt / "gaptrain-state.pt"), {"step": 1})
