"""The guard's fast path resolution (issue 2 part 10; issue 2 benchmark): exactly ``os.path.realpath``.

The guard proves folders outside ``output/`` and ``logs/`` once and then ``lstat``s only the
names below them; these tests check that it still answers what ``realpath`` answers, and that
a symlink swapped in during a run is still seen, in the real child too.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagent.executor import path_guard
from localagent.executor.sandbox_runner import run_task
from tests.helpers import ISOLATIONS, sandbox_layout

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows; POSIX fast path")
W = os.O_WRONLY | os.O_CREAT | os.O_TRUNC


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    (spaces.input / "a.txt").write_text("original", encoding="utf-8")
    return spaces


def _tree(base: Path) -> Path:
    """A workspace with folders, files and every kind of symlink (in, out, up, dangling, looping)."""
    root = base / "ws"
    outside = base / "outside"
    (outside / "deep").mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text("s", encoding="utf-8")
    for folder in ("input/sub", "output/sub", "logs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "input" / "a.txt").write_text("a", encoding="utf-8")
    links = {"input/to_out": outside, "input/to_sub": root / "input" / "sub", "output/up": Path(".."),
             "input/dangling": root / "nothing", "input/loop": root / "input" / "loop",
             "output/to_secret": outside / "secret.txt", "input/rel_sub": Path("sub")}
    for rel, target in links.items():
        if not os.path.lexists(root / rel):
            (root / rel).symlink_to(target)
    return root


NAMES = ["input", "output", "logs", "sub", "a.txt", "to_out", "to_sub", "up", "dangling", "loop", "to_secret",
         "rel_sub", "deep", "secret.txt", "missing", "..", ".", "", "nul\x00name"]


@settings(max_examples=300, deadline=None)
@given(names=st.lists(st.sampled_from(NAMES), min_size=0, max_size=6), absolute=st.booleans(),
       repeat=st.integers(min_value=1, max_value=3))
def test_fast_path_is_realpath(tmp_path_factory: pytest.TempPathFactory, names: list[str], absolute: bool,
                               repeat: int) -> None:
    base = tmp_path_factory.getbasetemp() / "fast_realpath"
    root = _tree(base).resolve()
    env = path_guard._frozen_env(path_guard.make_config(root))
    text = "/".join(names)
    path = str(root / text) if absolute else text
    previous = os.getcwd()
    os.chdir(root)
    try:
        for _ in range(repeat):  # the second answer comes with the proved folders cached
            try:
                expected: object = os.path.realpath(path)
            except ValueError as error:  # a NUL byte: the guard must fail the same way (a denial)
                expected = type(error)
            try:
                answer: object = env["_fast_realpath"](path)
            except ValueError as error:
                answer = type(error)
            assert answer == expected, path
    finally:
        os.chdir(previous)


def test_symlink_swapped_into_output_is_seen(layout: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    decide = path_guard.build_decider(path_guard.make_config(layout.root))
    monkeypatch.chdir(layout.root)
    (layout.output / "sub").mkdir()
    assert decide("open", ("output/sub/x.txt", "w", W)) is None  # output/ proved, sub checked
    (layout.output / "sub").rmdir()
    (layout.output / "sub").symlink_to(layout.input)  # what a rename of a planted link would do
    assert decide("open", ("output/sub/a.txt", "w", W)) == ("path", str(layout.input / "a.txt"))
    assert decide("os.utime", ("output/sub/a.txt", None, None, -1))[0] == "destructive"
    assert decide("os.mkdir", ("output/sub/new", 0o777, -1))[0] == "path"


def test_file_swapped_for_a_symlink_in_a_proved_folder_is_seen(layout: SimpleNamespace,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    decide = path_guard.build_decider(path_guard.make_config(layout.root))
    monkeypatch.chdir(layout.root)
    assert decide("open", ("input/a.txt", "r", os.O_RDONLY)) is None  # input/ is now proved
    (layout.input / "a.txt").unlink()
    (layout.input / "a.txt").symlink_to("/etc/passwd")
    assert decide("open", ("input/a.txt", "r", os.O_RDONLY)) == ("path", os.path.realpath("/etc/passwd"))
    (layout.input / "b").symlink_to(layout.output)
    assert decide("open", ("input/b/z.txt", "w", W)) is None  # the link leads into output/: allowed, as before


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_task_cannot_escape_by_swapping_symlinks_in_output(layout: SimpleNamespace, isolation: str) -> None:
    # Planted before the run (the task cannot make links): "planted" resolves inside output/
    # while "t" is a link two folders deep, and to input/ once "t" is a real folder.
    (layout.output / "a" / "b").mkdir(parents=True)
    (layout.output / "t").symlink_to("a/b", target_is_directory=True)
    (layout.output / "planted").symlink_to("t/../../input", target_is_directory=True)
    code = layout.root / "task_swap.py"
    code.write_text(textwrap.dedent("""
        import os
        os.makedirs("output/job", exist_ok=True)
        with open("output/job/first.txt", "w") as handle:  # output/job is resolved once
            handle.write("ok")
        os.rename("output/job", "output/old")
        os.rename("output/planted", "output/job")  # allowed: it leads to output/input for now
        os.rename("output/t", "output/t_old")
        os.mkdir("output/t")  # now output/job leads to input/
        print("LEADS TO INPUT", os.path.realpath("output/job") == os.path.realpath("input"))
        for label, action in (("write", lambda: open("output/job/a.txt", "w").write("changed")),
                              ("append", lambda: open("output/job/a.txt", "a").write("changed")),
                              ("chmod", lambda: os.chmod("output/job/a.txt", 0o777)),
                              ("remove", lambda: os.remove("output/job/a.txt")),
                              ("mkdir", lambda: os.mkdir("output/job/new"))):
            try:
                action()
                print("ALLOWED", label)
            except PermissionError:
                print("DENIED", label)
    """), encoding="utf-8")
    lines: list[str] = []
    result = run_task(code, layout, "swap", isolation=isolation, timeout=60, on_output=lines.append)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert "LEADS TO INPUT True" in lines
    assert [line for line in lines if line.startswith(("ALLOWED", "DENIED"))] == [
        "DENIED write", "DENIED append", "DENIED chmod", "DENIED remove", "DENIED mkdir"]
    assert (layout.input / "a.txt").read_text(encoding="utf-8") == "original"
    assert (layout.input / "a.txt").stat().st_mode & 0o777 != 0o777 and not (layout.input / "new").exists()
    assert (layout.output / "old" / "first.txt").read_text(encoding="utf-8") == "ok"
