"""Secret files below the workspace at run time (issue 2 parts 10-11; seed 001 §6): the guard and bwrap's masks.

The names come from the one policy (``workspace/pathnames.py``); these tests check that the guard's
copy gives the same answers, that a task can read none of them in either isolation (however the path
is built), and that bubblewrap hides them at the OS layer too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagent.executor import guard_freeze, guard_names, path_guard, sandbox, sandbox_masks
from localagent.executor.sandbox_runner import run_task
from localagent.workspace import pathnames
from tests.helpers import ISOLATIONS, needs_bwrap, sandbox_layout

SECRET = "sk-GUARD-SECRET-0123456789"
W = os.O_WRONLY | os.O_CREAT | os.O_TRUNC

SECRET_FILES = [".env", ".ENV", ".env.local", "config/.Env", "input/.ssh/id_rsa", "input/deep/a/b/server.PEM",
                "input/credentials.json", "input/my_token.txt", ".git/config", ".GIT/HEAD", ".localagent/state.json",
                "input/.aws/config", "input/.ｅｎｖ", "input/.vscode/settings.json", "input/secrets/list.txt"]


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    (spaces.input / "a.txt").write_text("plain", encoding="utf-8")
    for rel in SECRET_FILES:
        path = spaces.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SECRET, encoding="utf-8")
    return spaces


NAMES = st.sampled_from([".env", ".ENV", "id_rsa.pub", "a.pem", "notes.txt", ".git", ".Git", ".ssh", "secrets",
                         "token.json", "x", "input", "README", ".localagent", ".vscode", "ａ.txt", ".g\u200cit",
                         "api_key.txt", "photo.png", "output", "logs", ".envrc", "key", "a.key."])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(NAMES, min_size=1, max_size=5))
def test_guard_names_follow_the_one_policy(parts: list[str]) -> None:
    expected = pathnames.sensitive_parts(parts) or pathnames.protected_parts(parts)
    frozen = guard_freeze.frozen_name_rules()["is_secret_parts"]
    assert guard_names.is_secret_parts(parts) == expected
    assert frozen(parts) == expected
    listing = any(pathnames.is_sensitive_dir_name(p) or pathnames.is_protected_name(p) for p in parts)
    assert guard_names.is_secret_parts(parts, listing=True) == listing


@pytest.mark.parametrize(("name", "product"), [
    ("task_20200101_000000_abcd.json", True), ("task_1.log", True), ("task_1.py", True), ("TASK_1.JSON", True),
    ("security_metrics.json", True), ("security_metrics.json.bak", True), (".security_metrics.json.x1.tmp", True),
    ("localagent.log", True), ("localagent.log.1", True), ("ｔａｓｋ_1.json", True), ("notes.txt", False),
    ("my_task.json", False), ("metrics.json", False)])
def test_product_log_names(name: str, product: bool) -> None:
    assert guard_names.is_product_log_name(name) is product


def test_decisions_for_secret_paths(layout, monkeypatch) -> None:
    monkeypatch.chdir(layout.root)
    decide = path_guard.build_decider(path_guard.make_config(layout.root))
    for rel in SECRET_FILES:
        assert decide("open", (rel, "r", os.O_RDONLY)) is not None, rel
        assert decide("open", (str(layout.root / rel), None, os.O_RDONLY)) is not None, rel
    for folder in (".git", "input/.ssh", ".localagent", "input/secrets"):
        assert decide("os.scandir", (folder,)) is not None, folder
    for rel in ("output/.env", "output/.git/config", "logs/id_rsa", "output/k.pem"):
        assert decide("open", (rel, "w", W)) is not None, rel
    assert decide("os.mkdir", ("output/.git", 0o777, -1)) is not None
    (layout.output / "a").write_text("x", encoding="utf-8")
    assert decide("os.rename", ("output/a", "output/.env", -1, -1)) is not None
    for allowed in ("input/a.txt", "task_x.py"):
        assert decide("open", (allowed, "r", os.O_RDONLY)) is None, allowed
    for folder in (".", "input", "config"):  # a folder holding secrets may be listed
        assert decide("os.listdir", (folder,)) is None, folder
    assert decide("open", (os.path.join(os.path.dirname(os.__file__), "secrets.py"), "r", 0)) is None
    assert decide("open", (os.path.join(os.path.dirname(os.__file__), "tokenize.py"), "r", 0)) is None


READS = {
    "computed": "p = '.' + 'e' + 'nv'\nprint(open(p).read())",
    "absolute": "import os\nprint(open(os.path.join(os.getcwd(), '.env')).read())",
    "dotdot": "print(open('input/../.env').read())",
    "os_open": "import os\nfd = os.open('.git/' + 'config', os.O_RDONLY)\nprint(os.read(fd, 100))",
    "pathlib": "from pathlib import Path\nprint(Path('input', '.ssh', 'id_rsa').read_text())",
    "walk": ("import os\nfor r, d, f in os.walk('.'):\n    for n in f:\n        try:\n"
             "            print(open(os.path.join(r, n)).read())\n        except OSError:\n            pass"),
    "copytree": ("import shutil\ntry:\n    shutil.copytree('.', 'output/all', ignore=shutil.ignore_patterns('output'))\n"
                 "except Exception as e:\n    print(type(e).__name__)\nimport os\nfor r, d, f in os.walk('output'):\n"
                 "    for n in f:\n        print(open(os.path.join(r, n)).read())"),
    "chdir": "import os\nos.chdir('input')\nprint(open('.ssh/id_rsa').read())",
    "proc_cwd": "print(open('/proc/self/cwd/.env').read())",
    "fullwidth": "print(open('input/.\\uff45\\uff4e\\uff56').read())",
    "case": "print(open('.ENV').read())",
    "zip": "import zipfile\nwith zipfile.ZipFile('output/z.zip', 'w') as z:\n    z.write('.env')\n"
           "print(zipfile.ZipFile('output/z.zip').read('.env'))",
}


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("name", sorted(READS))
def test_task_cannot_read_workspace_secrets(layout, isolation, name) -> None:
    code = layout.root / "task_s.py"
    code.write_text(textwrap.dedent(READS[name]) + "\nprint('plain:', open('input/a.txt').read())\n",
                    encoding="utf-8")
    result = run_task(code, layout, "s", isolation=isolation, timeout=60)
    log = result.log_path.read_text(encoding="utf-8")
    assert SECRET not in log
    for path in layout.output.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    if name in ("walk", "copytree"):
        assert "plain: plain" in log, log


def test_secret_masks_cover_files_and_folders(layout) -> None:
    (layout.input / "link.env").symlink_to(layout.input / "a.txt")
    (layout.output / ".env").write_text(SECRET, encoding="utf-8")
    argv, complete = sandbox_masks.secret_masks(layout.root, skip=[layout.output, layout.logs])
    assert complete
    files = {argv[i + 2] for i, arg in enumerate(argv) if arg == "--ro-bind"}
    folders = {argv[i + 1] for i, arg in enumerate(argv) if arg == "--tmpfs"}
    root = str(layout.root)
    assert {root + "/.env", root + "/input/deep/a/b/server.PEM", root + "/input/my_token.txt"} <= files
    assert {root + "/.git", root + "/.GIT", root + "/input/.ssh", root + "/input/secrets"} <= folders
    assert not any(p.startswith(root + "/.git/") for p in files)  # a masked folder is not entered
    assert root + "/input/link.env" not in files  # symlinks are left to the guard
    assert root + "/output/.env" not in files  # output/ is bound read-write later: guard only
    assert all(argv[i + 1] == os.devnull for i, arg in enumerate(argv) if arg == "--ro-bind")


def test_secret_masks_stop_at_their_bounds(tmp_path, monkeypatch) -> None:
    deep = tmp_path.joinpath(*["d"] * (sandbox_masks.MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    (deep / ".env").write_text("x", encoding="utf-8")
    (tmp_path / ".env").write_text("x", encoding="utf-8")
    argv, complete = sandbox_masks.secret_masks(tmp_path)
    assert not complete and str(tmp_path / ".env") in argv and str(deep / ".env") not in argv
    monkeypatch.setattr(sandbox_masks, "MAX_ENTRIES", 1)
    assert sandbox_masks.secret_masks(tmp_path)[1] is False


@needs_bwrap
def test_bwrap_hides_secrets_without_the_guard(layout) -> None:
    """The OS layer alone (no guard in this child): secret files read empty or fail, folders are empty."""
    probe = ("import os\nfor p in %r:\n    try:\n        print(p, open(p).read())\n    except OSError as e:\n"
             "        print(p, 'error', e.errno)\nprint(os.listdir('.git'), os.listdir('input/.ssh'))\n"
             "print(open('input/a.txt').read())\n") % (SECRET_FILES,)
    argv = sandbox.bwrap_argv(layout.root, [layout.output, layout.logs]) + [sys.executable, "-I", "-c", probe]
    result = subprocess.run(argv, capture_output=True, text=True, cwd=layout.root, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert SECRET not in result.stdout
    assert "[] []" in result.stdout and "plain" in result.stdout
