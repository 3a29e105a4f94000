"""Literal write targets outside output/ and logs/, and sensitive or protected path literals
(safety/path_uses.py; red-team findings ``test_literal_write_into_input_is_blocked`` and
``test_sensitive_literal_read_is_blocked``). Every row runs without a workspace and with one.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from localagent.safety.path_uses import UNKNOWN, PathReader
from localagent.safety.rule_checker import check_code
from localagent.safety.security_metrics import category_of
from tests.helpers import sandbox_layout


@pytest.fixture(params=["no_workspace", "workspace"])
def root(request, tmp_path: Path) -> Path | None:
    if request.param == "no_workspace":
        return None
    return sandbox_layout(tmp_path).root


NORMAL = {
    "mkdir_output": "from pathlib import Path\nPath('output').mkdir(exist_ok=True)",
    "makedirs_output": "import os\nos.makedirs('output/sub', exist_ok=True)",
    "join_output": "import os\nd = 'x'\nos.makedirs(os.path.join('output', d), exist_ok=True)",
    "zip_write_output": "import zipfile\nwith zipfile.ZipFile('output/a.zip', 'w') as z:\n    z.write('input/a.txt')",
    "tar_write_output": "import tarfile\nt = tarfile.open('output/a.tar.gz', 'w:gz')",
    "open_join_output": "import os\nname = 'a'\nopen(os.path.join('output', name), 'w').write('x')",
    "div_output": "from pathlib import Path\nout_dir = Path('output')\n(out_dir / 'x.txt').write_text('hi')",
    "basic_config": "import logging\nlogging.basicConfig(level=logging.INFO)",
    "json_dump": "import json\njson.dump({}, open('output/x.json', 'w'))",
    "read_input": "print(open('input/a.txt', encoding='utf-8').read())",
    "copy_into_output": "import shutil\nshutil.copy2('input/a.txt', 'output/')",
    "extract_into_output": "import zipfile\nzipfile.ZipFile('input/a.zip').extractall('output/a')",
    "fstring_output": "name = 'a'\nopen(f'output/{name}.txt', 'w')",
    "fstring_unknown_folder": "name = 'a'\nopen(f'{name}.txt', 'w')",
    "csv_writer": "import csv\ncsv.writer(open('output/x.csv', 'w', newline=''))",
    "mirror_tree": ("from pathlib import Path\nfor p in Path('input').rglob('*'):\n"
                    "    t = Path('output') / p.relative_to('input')\n    t.parent.mkdir(parents=True, exist_ok=True)\n"
                    "    t.write_bytes(p.read_bytes())"),
    "os_open_read": "import os\nfd = os.open('input/a.txt', os.O_RDONLY)\nos.close(fd)",
    "with_suffix_output": "from pathlib import Path\nPath('output/a.txt').with_suffix('.bak').write_text('x')",
    "log_file": "import logging\nlogging.basicConfig(filename='logs/run.log')",
    "message_with_slashes": "print('see input/ and output/')",
    "glob_input": "import glob\nprint(glob.glob('input/**/*.jpg', recursive=True))",
    "skip_list": "import os\nfor r, d, f in os.walk('input'):\n    d[:] = [x for x in d if x not in ('.git', '.venv')]",
    "skip_set": "SKIP = {'.env', '.git', '.DS_Store'}\nprint(len(SKIP))",
    "copytree_backup": "import shutil\nshutil.copytree('input', 'output/backup', dirs_exist_ok=True)",
    "gitignore_exists": "import os\nprint(os.path.exists('.gitignore'))",
    "path_open_w_output": "from pathlib import Path\nPath('output/report.md').open('w').write('x')",
    "gzip_output": "import gzip\ngzip.open('output/a.gz', 'wb').write(b'x')",
    "mode_variable_output": "mode = 'w'\nopen('output/a', mode)",
    "parent_of_output_file": "from pathlib import Path\nPath('output/a/b.txt').parent.mkdir(parents=True)",
}

WRITES = {
    "open_w": "open('input/a.txt', 'w')", "open_a": "open('input/a.txt', 'a')", "open_r_plus": "open('input/a.txt', 'r+')",
    "open_x": "open('input/a.txt', 'x')", "open_wb": "open('input/a.txt', 'wb')",
    "open_keywords": "open(file='input/a.txt', mode='w')", "open_mode_variable": "m = 'w'\nopen('input/a.txt', m)",
    "open_mode_computed": "import sys\nopen('input/a.txt', sys.argv[1])",
    "io_open": "import io\nio.open('input/a.txt', 'w')", "codecs_open": "import codecs\ncodecs.open('input/a.txt', 'w', 'utf-8')",
    "gzip_open": "import gzip\ngzip.open('input/a.txt', 'wb')", "bz2_open": "import bz2\nbz2.open('input/a.bz2', 'w')",
    "path_open": "from pathlib import Path\nPath('input/a.txt').open('w')",
    "write_text": "from pathlib import Path\nPath('input/a.txt').write_text('x')",
    "write_bytes": "from pathlib import Path\nPath('input/a.txt').write_bytes(b'x')",
    "touch": "from pathlib import Path\nPath('input/new.txt').touch()", "path_mkdir": "from pathlib import Path\nPath('input/sub').mkdir()",
    "name_bound_path": "from pathlib import Path\np = Path('input') / 'a.txt'\np.write_text('x')",
    "path_parts": "from pathlib import Path\nPath('input', 'a.txt').write_text('x')",
    "div_parens": "from pathlib import Path\n(Path('input') / 'a.txt').write_text('x')",
    "climb_into_input": "from pathlib import Path\nPath('output/../input/a.txt').write_text('x')",
    "fstring_input": "name = 'a'\nopen(f'input/{name}', 'w')", "join_input": "import os\nopen(os.path.join('input', 'a.txt'), 'w')",
    "join_input_unknown": "import os\nn = 'a'\nopen(os.path.join('input', n), 'w')",
    "os_open_wronly": "import os\nos.open('input/a.txt', os.O_WRONLY)", "os_open_rdwr": "import os\nos.open('input/a.txt', os.O_RDWR)",
    "os_open_creat": "import os\nos.open('input/a.txt', os.O_CREAT | os.O_WRONLY, 0o644)",
    "os_open_number": "import os\nos.open('input/a.txt', 1)", "os_mkdir": "import os\nos.mkdir('input/x')",
    "os_makedirs": "import os\nos.makedirs('input/x/y')", "os_utime": "import os\nos.utime('input/a.txt', (0, 0))",
    "copy": "import shutil\nshutil.copy('output/x', 'input/a.txt')", "copy2_folder": "import shutil\nshutil.copy2('output/x', 'input/')",
    "copyfile_dst": "import shutil\nshutil.copyfile('output/x', dst='input/a.txt')",
    "copymode": "import shutil\nshutil.copymode('output/x', 'input/a.txt')",
    "copystat": "import shutil\nshutil.copystat('output/x', 'input/a.txt')",
    "copytree": "import shutil\nshutil.copytree('output', 'input/copy')",
    "from_import_copyfile": "from shutil import copyfile\ncopyfile('output/x', 'input/a.txt')",
    "aliased_shutil": "import shutil as sh\nsh.copy('output/x', 'input/a.txt')",
    "make_archive": "import shutil\nshutil.make_archive('input/all', 'zip', 'output')",
    "unpack_to_root": "import shutil\nshutil.unpack_archive('input/a.zip')",
    "unpack_to_input": "import shutil\nshutil.unpack_archive('input/a.zip', 'input')",
    "extractall_root": "import zipfile\nzipfile.ZipFile('input/a.zip').extractall()",
    "extractall_input": "import zipfile\nzipfile.ZipFile('input/a.zip').extractall('input')",
    "extractall_dot": "import zipfile\nzipfile.ZipFile('input/a.zip').extractall(path='.')",
    "tar_extractall": "import tarfile\ntarfile.open('input/a.tar').extractall('input/x')",
    "tar_extract": "import tarfile\nt = tarfile.open('input/a.tar')\nt.extract('m', 'input')",
    "zip_append": "import zipfile\nzipfile.ZipFile('input/a.zip', 'a')", "tar_write": "import tarfile\ntarfile.open('input/a.tar', 'w')",
    "log_into_input": "import logging\nlogging.basicConfig(filename='input/a.txt')",
    "file_handler": "import logging\nlogging.FileHandler('input/log.txt')",
    "root_file": "open('result.txt', 'w')", "root_dot_file": "open('./result.txt', 'w')",
    "git_config": "open('.git/config', 'w')", "localagent_config": "open('.localagent/config.toml', 'w')",
}

SENSITIVE = {
    "env": "print(open('.env').read())", "env_local": "print(open('.env.local').read())",
    "input_env": "print(open('input/.env').read())", "git_config": "from pathlib import Path\nprint(Path('.git/config').read_text())",
    "git_parts": "from pathlib import Path\nprint(Path('.git', 'config').read_text())",
    "git_div": "from pathlib import Path\nprint((Path('.git') / 'config').read_text())",
    "ssh_key": "from pathlib import Path\nprint(Path('input/.ssh/id_rsa').read_text())",
    "ed25519": "from pathlib import Path\nprint(Path('input/id_ed25519').read_text())",
    "join_ssh": "import os\nprint(open(os.path.join('input', '.ssh', 'id_rsa')).read())",
    "name_bound": "p = '.env'\nprint(open(p).read())", "listdir_git": "import os\nprint(os.listdir('.git'))",
    "listdir_localagent": "import os\nprint(os.listdir('.localagent'))", "glob_git": "import glob\nprint(glob.glob('.git/*'))",
    "pem": "print(open('input/server.pem').read())", "credentials": "print(open('input/credentials.json').read())",
    "aws": "print(open('input/.aws/credentials').read())", "fstring_ssh": "name = 'x'\nprint(open(f'.ssh/{name}').read())",
    "fstring_env_last": "name = 'x'\nprint(open(f'{name}/.env').read())", "copy_env": "import shutil\nshutil.copy('.env', 'output/e')",
    "copytree_git": "import shutil\nshutil.copytree('.git', 'output/git')",
    "joinpath": "from pathlib import Path\nprint(Path('.').joinpath('.env').read_text())",
    "bare_literal": "x = 'input/.ssh/id_rsa'",
}


@pytest.mark.parametrize("name", sorted(NORMAL))
def test_normal_file_code_passes(root: Path | None, name: str) -> None:
    report = check_code(NORMAL[name], root)
    assert report.passed, report.to_json()


@pytest.mark.parametrize("name", sorted(WRITES))
def test_literal_write_outside_output_is_blocked(root: Path | None, name: str) -> None:
    report = check_code(WRITES[name], root)
    kinds = {v.kind for v in report.violations}
    assert "write_outside_output" in kinds or (name.startswith(("git_", "localagent")) and "sensitive_path" in kinds), \
        report.to_json()
    assert all(v.message.startswith("第 ") and v.message_en.startswith("line ") for v in report.violations)


@pytest.mark.parametrize("name", sorted(SENSITIVE))
def test_sensitive_or_protected_path_is_blocked(root: Path | None, name: str) -> None:
    report = check_code(SENSITIVE[name], root)
    assert "sensitive_path" in {v.kind for v in report.violations}, report.to_json()


def test_outside_paths_stay_path_outside_only(root: Path | None) -> None:
    for literal in ("/etc/passwd", "../secret.txt", "~/.ssh/id_rsa"):
        report = check_code(f"print(open({literal!r}).read())", root)
        assert {v.kind for v in report.violations} == {"path_outside"}, report.to_json()


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_link_under_output_into_input_is_a_write_into_input(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for name in ("input", "output", "logs"):
        (ws / name).mkdir(parents=True)
    os.symlink(ws / "input", ws / "output" / "back")
    assert not check_code("open('output/back/a.txt', 'w')", ws).passed
    assert check_code("open('output/back/a.txt', 'w')", None).passed  # without a workspace: names only


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_link_to_env_is_judged_by_its_target(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "input").mkdir(parents=True)
    (ws / ".env").write_text("K=v\n", encoding="utf-8")
    os.symlink(ws / ".env", ws / "input" / "settings.txt")
    report = check_code("print(open('input/settings.txt').read())", ws)
    assert "sensitive_path" in {v.kind for v in report.violations}


def test_absolute_literal_inside_input_is_a_write_into_input(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for name in ("input", "output", "logs"):
        (ws / name).mkdir(parents=True)
    assert not check_code(f"open({str(ws / 'input' / 'a.txt')!r}, 'w')", ws).passed
    assert check_code(f"open({str(ws / 'output' / 'a.txt')!r}, 'w')", ws).passed
    assert check_code("open('input/../output/b.txt', 'w')", ws).passed  # lands in output/


def test_new_kinds_count_as_path_violations() -> None:
    assert category_of("sensitive_path") == "path"
    assert category_of("write_outside_output") == "path"


@pytest.mark.parametrize(("source", "expected"), [
    ("Path('input') / 'a' / name", "input/a/" + UNKNOWN),
    ("os.path.join('output', f'{n}.txt')", "output/" + UNKNOWN + ".txt"),
    ("Path('output/x.txt').parent", "output"),
    ("Path('input/a.txt').with_suffix('.b')", "input/" + UNKNOWN),
    ("Path('a').joinpath('b', 'c')", "a/b/c"),
    ("Path()", "."),
    ("Path('output', '/etc')", "/etc"),
    ("total / 2", None),
])
def test_path_reader(source: str, expected: str | None) -> None:
    tree = ast.parse(source)
    node = tree.body[0].value
    assert PathReader(tree).text(node) == expected


def test_a_name_assigned_twice_is_unknown() -> None:
    tree = ast.parse("p = 'output/a'\np = 'input/a'\nopen(p, 'w')")
    call = tree.body[2].value
    assert PathReader(tree).text(call.args[0]) is None
