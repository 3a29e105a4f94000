"""Property tests: random path strings never get past the gate (issue 3 "Tests").

Paths are built from ``..``, ``.``, both separators, Unicode, Windows forms
(``C:``, ``\\\\?\\``, ``::$DATA``, ``CON``) and the names of symlinks made in the
temp tree pointing inside and outside. ``resolve`` either returns a path whose
full resolution lies inside the root or raises ``PathDenied``; every ``can_*``
allows only paths inside the root; nothing else is ever raised.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from localagent.errors import PathDenied
from localagent.workspace.policy import AccessPolicy, PolicyDecision, is_within

LINKS = ("in_file", "in_dir", "out_file", "out_dir", "loop_a", "dangling_out", "up")
NAMES = ("a.txt", "sub", "deep", "x.py", "中文.md", "with space.txt", ".git", ".env", "CON", "nul.txt",
         "a.exe", "b.TXT", "outside", "ws", "secret.txt")
ATOMS = st.sampled_from(("..", ".", "", "C:", "c:", "\\\\?\\", "\\\\.\\", "\\\\server\\share", "~", "::$DATA",
                         ":stream", " ", ".", "\x00", "GIT~1", "/etc", "/")) | st.sampled_from(LINKS + NAMES)
UNICODE = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)
SEPARATOR = st.sampled_from(("/", "\\", "//", "\\/"))


@st.composite
def path_strings(draw) -> str:
    parts = draw(st.lists(ATOMS | UNICODE, min_size=1, max_size=7))
    seps = draw(st.lists(SEPARATOR, min_size=len(parts), max_size=len(parts)))
    text = "".join(part + sep for part, sep in zip(parts, seps, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("/\\")
    prefix = draw(st.sampled_from(("", "", "", "/", "\\", "{ROOT}/", "{PARENT}/", "C:\\", "\\\\?\\C:\\")))
    return prefix + text


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[AccessPolicy, Path, Path]:
    base = tmp_path_factory.mktemp("prop")
    root, outside = base / "ws", base / "outside"
    (root / "sub" / "deep").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("outside")
    for rel in ("a.txt", "sub/x.py", "sub/deep/中文.md", "with space.txt", ".env", "b.TXT"):
        (root / rel).write_text("inside")
    os.symlink(root / "a.txt", root / "in_file")
    os.symlink(root / "sub", root / "sub" / "deep" / "in_dir")
    os.symlink(outside / "secret.txt", root / "out_file")
    os.symlink(outside, root / "sub" / "out_dir")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    os.symlink(outside / "missing", root / "dangling_out")
    os.symlink("..", root / "sub" / "up")
    return AccessPolicy(root), root.resolve(), base.resolve()


def _concrete(text: str, root: Path, base: Path) -> str:
    return text.replace("{ROOT}", str(root)).replace("{PARENT}", str(base))


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
GATES = ("can_read_file", "can_read_directory", "can_create_file", "can_create_directory", "can_write_file",
         "can_delete_to_trash")


@SETTINGS
@given(raw=path_strings(), for_write=st.booleans())
def test_resolve_is_inside_or_refused(world, raw, for_write):
    policy, root, base = world
    path = _concrete(raw, root, base)
    try:
        result = policy.resolve(path, for_write=for_write)
    except PathDenied as exc:
        assert exc.message("zh") and exc.message("en")
        return
    assert is_within(result, root)
    assert is_within(result.resolve(), root)
    assert policy.is_inside_workspace(path)


@SETTINGS
@given(raw=path_strings())
def test_every_gate_allows_only_inside(world, raw):
    policy, root, base = world
    path = _concrete(raw, root, base)
    for gate in GATES:
        decision = getattr(policy, gate)(path)
        assert isinstance(decision, PolicyDecision)
        if decision:
            real = Path(os.path.realpath(policy.resolve(path)))
            assert is_within(real, root), (gate, path)
        else:
            assert decision.reason and decision.reason_en


@SETTINGS
@given(source=path_strings(), target=path_strings())
def test_move_allows_only_inside_pairs(world, source, target):
    policy, root, base = world
    source, target = _concrete(source, root, base), _concrete(target, root, base)
    if policy.can_move_file(source, target):
        for path in (source, target):
            assert is_within(Path(os.path.realpath(policy.resolve(path, for_write=True))), root)


@SETTINGS
@given(raw=path_strings())
def test_questions_never_raise(world, raw):
    policy, root, base = world
    path = _concrete(raw, root, base)
    for question in ("is_inside_workspace", "has_symlink_segment", "is_system_path", "is_dangerous_suffix",
                     "is_sensitive_file", "is_protected_path", "is_supported_text_file"):
        assert isinstance(getattr(policy, question)(path), bool)
    assert isinstance(policy.normalize_path(path), str)
    try:
        rel = policy.to_relative_path(path)
    except PathDenied:
        return
    assert not rel.startswith("/") and ".." not in rel.split("/")
