"""Files the helper writes and reads for the job (checkpoints, progress), kept out of other
users' reach. A directory another user can write lets that user plant a link for a write to
follow (the job's user then overwrites a file of their own), a file the job takes for its own
(fake progress), or a checkpoint whose unpickling runs their code as the job's user. So: every
file is created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW: never through a link) or, when it
exists, used only when it is the user's own regular file that nobody else can write; a file is
replaced by renaming a fresh one over it; and a directory files go in must be the user's own
and writable by nobody else. docs/job-side.md ("Files and other users") has the rules.
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from typing import BinaryIO, Callable


class UnsafeFileError(RuntimeError):
    """A file or directory the helper refuses to use; the message says why and what to do."""


def _who(info: os.stat_result) -> str:
    return f"owner uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):04o}"


def file_problem(path: str, info: os.stat_result) -> str | None:
    """What is wrong with ``info`` (fstat of an open ``path``) as a file of the job, or None."""
    if not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file"
    return _ownership_problem(path, info)


def _ownership_problem(path: str, info: os.stat_result) -> str | None:
    """A file's or directory's: not the user's own, or writable by other users."""
    if info.st_uid != os.geteuid():
        return f"{path} is not yours ({_who(info)})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by other users ({_who(info)})"
    return None


def directory_problem(path: str) -> str | None:
    """What is wrong with the directory ``path`` as one the job's files go in, or None: it must
    be the user's own and writable by nobody else (a link to such a directory is fine)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return f"{path} does not exist"
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    return _ownership_problem(path, info)


def check_own_directory(path: str, what: str) -> None:
    """Raises UnsafeFileError when ``path`` (the directory of ``what``) is not the user's own
    directory that nobody else can write."""
    problem = directory_problem(path)
    if problem:
        raise UnsafeFileError(
            f"{what}: {problem}. Another user could plant or replace files there; use a directory "
            "of your own that only you can write (chmod go-w it, or choose another)")


def make_own_directory(path: str) -> None:
    """Creates ``path`` (mode 0700, parents as needed) or checks the one there
    (check_own_directory): a directory another user made first is refused, not used."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    check_own_directory(path, f"the directory {path}")


def _opened_own(fd: int, path: str) -> int:
    problem = file_problem(path, os.fstat(fd))
    if problem:
        os.close(fd)
        raise UnsafeFileError(f"{problem}: not used (only a file of your own that nobody else "
                              "can write is the job's)")
    return fd


def _open_no_link(path: str, flags: int) -> int:
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK,
                       0o600)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UnsafeFileError(f"{path} is a symbolic link: not used") from None
        if e.errno == errno.ENXIO:  # a named pipe nobody reads
            raise UnsafeFileError(f"{path} is not a regular file") from None
        raise


def open_own_for_append(path: str) -> int:
    """A descriptor to append to ``path``: created exclusively (mode 0600) when missing, else
    the user's own file nobody else can write (UnsafeFileError otherwise). The caller closes."""
    try:
        return _open_no_link(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        pass
    fd = _open_no_link(path, os.O_WRONLY | os.O_APPEND)
    # O_NONBLOCK was for the open only (a named pipe at the path fails the check below).
    os.set_blocking(fd, True)
    return _opened_own(fd, path)


def open_own_for_reading(path: str) -> BinaryIO | None:
    """``path`` opened for reading, None when it does not exist; UnsafeFileError when it is not
    the user's own regular file that nobody else can write, or is a link."""
    try:
        fd = _open_no_link(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    fd = _opened_own(fd, path)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def replace_atomically(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Writes a new ``path`` with ``write(file)``: into a fresh file created exclusively beside
    it (mode 0600), synced, renamed over ``path`` (a link there is replaced, never followed),
    and the directory synced: a crash leaves the old file or the new one, whole."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".tmp.")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
