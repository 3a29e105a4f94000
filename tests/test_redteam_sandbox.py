"""Red team: task code that passes the rule checker, run for real in the sandbox (bwrap and guard-only).

Each attack is first shown to pass ``check_code`` (so only the runtime layer stands), then run with
``run_task``. Stopped attacks are regression guards; harm that gets through is ``xfail(strict=True)``.
"""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from localagent.errors import WorkspaceError
from localagent.executor.sandbox_runner import run_task
from localagent.safety.rule_checker import check_code
from localagent.workspace.layout import WorkspaceLayout, prepare_workspace
from tests.helpers import ISOLATIONS

SECRET = "sk-REDTEAM-0123456789abcdef"


@pytest.fixture()
def layout(tmp_path: Path):
    lay = prepare_workspace(tmp_path / "ws", create_missing=True)
    (lay.input / "a.txt").write_text("orig", encoding="utf-8")
    (lay.output / "x").write_text("o", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("OUTSIDE-" + SECRET, encoding="utf-8")
    return lay


def _run(layout, code: str, isolation: str, *, must_pass_checker: bool = True):
    report = check_code(code, layout.root)
    if must_pass_checker:
        assert report.passed, report.violations  # the static layer lets it through: the runtime must hold
    path = layout.root / "task_rt.py"
    path.write_text(code, encoding="utf-8")
    result = run_task(path, layout, "rt", isolation=isolation, timeout=60)
    return result, result.log_path.read_text(encoding="utf-8")


# --- stopped at run time (regression guards) ----------------------------------------------------------------

WRITE_INTO_INPUT = {
    "open_w": "open('input/a.txt', 'w').write('PWNED')",
    "open_r_plus": "f = open('input/a.txt', 'r+')\nf.write('PWNED')\nf.close()",
    "open_append": "open('input/a.txt', 'a').write('PWNED')",
    "write_text": "from pathlib import Path\nPath('input/a.txt').write_text('PWNED')",
    "os_open_trunc": "import os\nos.close(os.open('input/a.txt', os.O_WRONLY | os.O_TRUNC))",
    "touch_new": "from pathlib import Path\nPath('input/new.txt').touch()",
    "copyfile_onto": "import shutil\nshutil.copyfile('output/x', 'input/a.txt')",
    "copymode_onto": "import shutil\nshutil.copymode('output/x', 'input/a.txt')",
    "utime": "import os\nos.utime('input/a.txt', (0, 0))",
    "logging_file": "import logging\nlogging.basicConfig(filename='input/a.txt')\nlogging.warning('PWNED')",
    "gzip_open": "import gzip\ngzip.open('input/a.txt', 'wb').write(b'PWNED')",
    "proc_self_fd": "import os\nfd = os.open('input/a.txt', os.O_RDONLY)\nopen('/proc/self/fd/%d' % fd, 'w').write('P')",
}


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("name", sorted(WRITE_INTO_INPUT))
def test_write_into_input_is_stopped(layout, isolation, name):
    """Both walls: the checker refuses each literal write into input/ (write_outside_output / path_outside),
    and the runtime still stops it when run anyway (a computed path would pass the checker)."""
    before = sorted(p.name for p in layout.input.iterdir())
    assert not check_code(WRITE_INTO_INPUT[name], layout.root).passed
    result, _log = _run(layout, WRITE_INTO_INPUT[name], isolation, must_pass_checker=False)
    assert (layout.input / "a.txt").read_text(encoding="utf-8") == "orig"
    assert (layout.input / "a.txt").stat().st_mtime > 0
    assert sorted(p.name for p in layout.input.iterdir()) == before
    assert result.returncode != 0 and result.interceptions


READ_OUTSIDE = {
    "cwd_parent": "from pathlib import Path\nprint((Path.cwd().parent / 'secret.txt').read_text())",
    "dirname_getcwd": "import os\nprint(open(os.path.join(os.path.dirname(os.getcwd()), 'secret.txt')).read())",
    "chr_slash": "print(open(chr(47) + 'etc/passwd').read())",
    "resolve_parent_list": "from pathlib import Path\nprint(list(Path('.').resolve().parent.iterdir()))",
    "environ_dump": "import os\nprint(dict(os.environ))",
    "proc_environ": "print(open('/proc/self/environ').read())",
    "proc_parent_environ": "import os\nprint(open('/proc/%d/environ' % os.getppid()).read())",
}


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("name", sorted(READ_OUTSIDE))
def test_outside_secret_never_reaches_the_log(layout, isolation, name, monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    # Runtime layer under test: the checker may flag some of these by name now ('secret.txt', 'etc/passwd'
    # are sensitive names: sensitive_path); the run goes ahead to prove the runtime holds on its own.
    _result, log = _run(layout, READ_OUTSIDE[name], isolation, must_pass_checker=False)
    assert SECRET not in log
    assert "root:x:0:0" not in log


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_symlink_in_input_to_outside_is_not_followed(layout, isolation):
    os.symlink(layout.root.parent / "secret.txt", layout.input / "link.txt")
    os.symlink(layout.root.parent, layout.input / "dirlink")
    code = ("import shutil, os\nfor r, d, f in os.walk('input', followlinks=True):\n    print(r, f)\n"
            "try:\n    print(open('input/link.txt').read())\nexcept OSError as e:\n    print('denied')\n"
            "shutil.copytree('input', 'output/c', ignore_dangling_symlinks=True, dirs_exist_ok=True)\n")
    _result, log = _run(layout, code, isolation)
    assert SECRET not in log
    assert not any(SECRET in p.read_text(errors="replace") for p in layout.output.rglob("*") if p.is_file())


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_zip_slip_stays_in_output(layout, isolation):
    with zipfile.ZipFile(layout.input / "z.zip", "w") as archive:
        archive.writestr("../input/a.txt", "ZIPSLIP")
        archive.writestr("../../slipped.txt", "ZIPSLIP")
        archive.writestr("/abs.txt", "ZIPSLIP")
    _run(layout, "import zipfile\nzipfile.ZipFile('input/z.zip').extractall('output')\n", isolation)
    assert (layout.input / "a.txt").read_text(encoding="utf-8") == "orig"
    assert not (layout.root.parent / "slipped.txt").exists()
    assert not (layout.root / "slipped.txt").exists()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_tar_slip_symlink_and_hardlink_are_stopped(layout, isolation):
    with tarfile.open(layout.input / "t.tar", "w") as archive:
        info = tarfile.TarInfo("../input/a.txt")
        info.size = 7
        archive.addfile(info, io.BytesIO(b"TARSLIP"))
        link = tarfile.TarInfo("pw")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
        hard = tarfile.TarInfo("hl")
        hard.type, hard.linkname = tarfile.LNKTYPE, "input/a.txt"
        archive.addfile(hard)
    code = ("import tarfile\nt = tarfile.open('input/t.tar')\nfor m in t.getmembers():\n    try:\n"
            "        t.extract(m, 'output')\n    except OSError as e:\n        print('denied', m.name)\n")
    result, _log = _run(layout, code, isolation)
    assert (layout.input / "a.txt").read_text(encoding="utf-8") == "orig"
    assert not (layout.output / "pw").is_symlink()
    assert not (layout.output / "hl").exists() or (layout.output / "hl").stat().st_nlink == 1
    assert result.interceptions


def test_symlinked_output_or_logs_outside_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("output", "logs", "input"):
        root = tmp_path / f"ws_{name}"
        root.mkdir()
        os.symlink(outside, root / name)
        with pytest.raises(WorkspaceError):
            prepare_workspace(root, create_missing=False)


# --- findings -----------------------------------------------------------------------------------------------

# Fixed (was REDTEAM xfail): the guard refuses secret names below the workspace; bwrap masks them too.
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_workspace_secrets_are_not_readable_by_task(layout, isolation):
    (layout.root / ".env").write_text(f"LLM_API_KEY={SECRET}\n", encoding="utf-8")
    (layout.root / ".git").mkdir()
    (layout.root / ".git" / "config").write_text(f"url = https://u:{SECRET}@example.com/r\n", encoding="utf-8")
    (layout.input / ".ssh").mkdir()
    (layout.input / ".ssh" / "id_rsa").write_text(SECRET, encoding="utf-8")
    code = ("for p in ('.env', '.git/config', 'input/.ssh/id_rsa'):\n    try:\n        print(open(p).read())\n"
            "    except OSError:\n        print('denied', p)\n")
    # The checker now flags the literals with separators (sensitive_path); this test is about the runtime layer.
    _result, log = _run(layout, code, isolation, must_pass_checker=False)
    assert SECRET not in log


# Fixed (was REDTEAM xfail): prepare_workspace refuses working folders that share a place (workspace/layout.py).
@pytest.mark.parametrize("target", ["input", "input/sub", ".git"])
def test_output_linked_into_input_is_refused(tmp_path, target):
    root = tmp_path / "ws"
    (root / "input" / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    os.symlink(root / target, root / "output")
    with pytest.raises(WorkspaceError):
        prepare_workspace(root, create_missing=False)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_output_linked_into_input_cannot_change_originals(tmp_path, isolation):
    """Defence in depth: the guard compares against the unresolved output path.

    prepare_workspace now refuses this layout, so it is built by hand (as the old
    prepare_workspace returned it) to keep the runtime layer under test on its own.
    """
    root = tmp_path / "ws"
    (root / "input").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "input" / "a.txt").write_text("orig", encoding="utf-8")
    os.symlink(root / "input", root / "output")
    with pytest.raises(WorkspaceError):
        prepare_workspace(root, create_missing=False)
    real = root.resolve()
    lay = WorkspaceLayout(real, real / "input", real / "input", real / "logs")
    code = "open('output/a.txt', 'w').write('PWNED')\n"
    path = root / "task_rt.py"
    path.write_text(code, encoding="utf-8")
    run_task(path, lay, "rt", isolation=isolation, timeout=60)
    assert (root / "input" / "a.txt").read_text(encoding="utf-8") == "orig"


# Fixed (was REDTEAM xfail): the guard's own source files are readable, so a traceback adds no interception.
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_one_denial_is_one_interception(layout, isolation):
    result, _log = _run(layout, "import os\nos.listdir('..')\n", isolation, must_pass_checker=False)
    assert result.returncode != 0
    assert len(result.interceptions) == 1, result.interceptions
