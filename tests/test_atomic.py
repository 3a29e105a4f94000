"""Atomic writes, exclusive creates and no-overwrite moves (issue 3 §3; seed 001 v1d: 失败时不能破坏原文件)."""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from localagent.workspace.atomic import (
    atomic_write_bytes,
    atomic_write_text,
    copy_no_replace,
    create_exclusive,
    is_temp_name,
    move_file_no_replace,
    rename_case_only,
    rename_no_replace,
)

REPO = Path(__file__).resolve().parents[1]


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_atomic_write_replaces_content_and_keeps_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    atomic_write_bytes(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert _names(tmp_path) == {"a.txt"}


def test_atomic_write_new_file_gets_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "new.txt", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o644


def test_atomic_write_text_converts_newlines_and_encoding(tmp_path):
    target = tmp_path / "t.txt"
    atomic_write_text(target, "一\n二\r\n三", encoding="gbk", newline="\r\n")
    assert target.read_bytes() == "一\r\n二\r\n三".encode("gbk")


def test_failed_write_leaves_original_and_no_temp(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_bytes(b"original")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"original"
    assert _names(tmp_path) == {"keep.txt"}


def test_replace_over_a_folder_fails_and_cleans_up(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "inside.txt").write_text("x")
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "d", b"data")
    assert (tmp_path / "d" / "inside.txt").read_text() == "x"
    assert _names(tmp_path) == {"d"}


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX only")
def test_write_failing_half_way_keeps_original(tmp_path):
    """A real I/O error part-way through (file size limit) leaves the old bytes and no temp file."""
    target = tmp_path / "big.bin"
    original = os.urandom(1000)
    target.write_bytes(original)
    script = (
        "import resource, signal, sys\n"
        "from localagent.workspace.atomic import atomic_write_bytes\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
        "try:\n"
        "    atomic_write_bytes(sys.argv[1], b'n' * 1_000_000)\n"
        "except OSError as exc:\n"
        "    print('failed', exc.errno)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(target)], env=_child_env(),
                         capture_output=True, text=True, check=True)
    assert out.stdout.startswith("failed")
    assert target.read_bytes() == original
    assert _names(tmp_path) == {"big.bin"}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX only")
def test_kill_9_mid_write_leaves_old_or_new_never_a_mix(tmp_path):
    """Kill a writer with SIGKILL at random moments: the target is always one whole version."""
    target = tmp_path / "data.bin"
    versions = {b"A" * (3 * 1024 * 1024), b"B" * (5 * 1024 * 1024)}
    target.write_bytes(b"A" * (3 * 1024 * 1024))
    script = (
        "import sys\n"
        "from localagent.workspace.atomic import atomic_write_bytes\n"
        "a, b = b'A' * (3 * 1024 * 1024), b'B' * (5 * 1024 * 1024)\n"
        "i = 0\n"
        "while True:\n"
        "    atomic_write_bytes(sys.argv[1], b if i % 2 == 0 else a)\n"
        "    i += 1\n"
        "    print(i, flush=True)\n"
    )
    rng = random.Random(1234)
    for _ in range(8):
        child = subprocess.Popen([sys.executable, "-c", script, str(target)], env=_child_env(),
                                 stdout=subprocess.PIPE, text=True)
        for _ in range(rng.randint(1, 4)):
            assert child.stdout.readline(), "the writer stopped early"
        threading.Event().wait(rng.uniform(0, 0.03))  # land somewhere inside the next write
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        assert target.read_bytes() in versions
        assert all(name == "data.bin" or is_temp_name(name) for name in _names(tmp_path))


def test_create_exclusive_never_overwrites(tmp_path):
    target = tmp_path / "n.txt"
    create_exclusive(target, b"first")
    with pytest.raises(FileExistsError):
        create_exclusive(target, b"second")
    assert target.read_bytes() == b"first"
    assert _names(tmp_path) == {"n.txt"}


def test_create_exclusive_race_has_one_winner(tmp_path):
    target = tmp_path / "race.txt"
    winners: list[bytes] = []
    barrier = threading.Barrier(16)

    def attempt(n: int) -> None:
        data = f"writer {n}".encode()
        barrier.wait()
        try:
            create_exclusive(target, data)
        except FileExistsError:
            return
        winners.append(data)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    assert target.read_bytes() == winners[0]
    assert _names(tmp_path) == {"race.txt"}


def test_copy_no_replace(tmp_path):
    src, dst = tmp_path / "s.txt", tmp_path / "d.txt"
    src.write_bytes(b"payload")
    os.chmod(src, 0o600)
    copy_no_replace(src, dst)
    assert dst.read_bytes() == b"payload"
    assert stat.S_IMODE(os.stat(dst).st_mode) == 0o600
    dst.write_bytes(b"someone else")
    with pytest.raises(FileExistsError):
        copy_no_replace(src, dst)
    assert dst.read_bytes() == b"someone else"
    assert _names(tmp_path) == {"s.txt", "d.txt"}


def test_rename_no_replace_refuses_existing_file_and_empty_folder(tmp_path):
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "a").read_text() == "a" and (tmp_path / "b").read_text() == "b"
    (tmp_path / "d1").mkdir()
    (tmp_path / "d1" / "x").write_text("x")
    (tmp_path / "d2").mkdir()  # os.rename would silently replace an empty folder
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "d1", tmp_path / "d2")
    assert (tmp_path / "d1" / "x").exists()
    rename_no_replace(tmp_path / "a", tmp_path / "c")
    assert not (tmp_path / "a").exists() and (tmp_path / "c").read_text() == "a"


def test_rename_case_only(tmp_path):
    (tmp_path / "a.txt").write_text("lower")
    rename_case_only(tmp_path / "a.txt", tmp_path / "A.txt")
    assert _names(tmp_path) == {"A.txt"}
    assert (tmp_path / "A.txt").read_text() == "lower"


def test_rename_case_only_never_replaces_a_different_file(tmp_path):
    (tmp_path / "a.txt").write_text("lower")
    try:
        (tmp_path / "A.txt").write_text("upper")
    except OSError:
        pytest.skip("case-insensitive filesystem")
    if len(_names(tmp_path)) == 1:
        pytest.skip("case-insensitive filesystem")
    with pytest.raises(FileExistsError):
        rename_case_only(tmp_path / "a.txt", tmp_path / "A.txt")
    assert (tmp_path / "a.txt").read_text() == "lower"
    assert (tmp_path / "A.txt").read_text() == "upper"
    assert _names(tmp_path) == {"a.txt", "A.txt"}


def _other_device_dir(tmp_path: Path) -> Path | None:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and os.stat(shm).st_dev != os.stat(tmp_path).st_dev:
        return shm
    return None


def test_move_across_filesystems_copies_then_removes(tmp_path):
    other = _other_device_dir(tmp_path)
    if other is None:
        pytest.skip("no second filesystem (/dev/shm) to move across")
    folder = other / f"la-test-{os.getpid()}-{random.randrange(1 << 30)}"
    folder.mkdir()
    try:
        src = tmp_path / "m.bin"
        src.write_bytes(os.urandom(4096))
        data = src.read_bytes()
        move_file_no_replace(src, folder / "m.bin")
        assert not src.exists() and (folder / "m.bin").read_bytes() == data
        src.write_bytes(b"again")
        with pytest.raises(FileExistsError):
            move_file_no_replace(src, folder / "m.bin")
        assert src.read_bytes() == b"again" and (folder / "m.bin").read_bytes() == data
        assert _names(folder) == {"m.bin"}
    finally:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()
