"""Red team: the static rule checker (issue 2 part 8) against escape classes seen in real sandbox bypasses.

Blocked snippets are regression guards. Snippets that pass the checker but do something the product
forbids are ``xfail(strict=True)`` findings; each also names what the runtime layer does with it
(see ``tests/test_redteam_sandbox.py`` for the runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localagent.safety.rule_checker import check_code
from tests.helpers import sandbox_layout


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    return sandbox_layout(tmp_path).root


BLOCKED = {
    "nfkc_fullwidth_eval": "ｅｖａｌ('1+1')",
    "nfkc_fullwidth_dunder": "print(().__ｃｌａｓｓ__)",
    "format_template_dunder": "print('{0.__class__}'.format(1))",
    "fstring_dunder": "x = 1\nprint(f'{x.__class__}')",
    "decorator_exec": "@exec\ndef f():\n    pass\n",
    "default_arg_eval": "def f(g=eval):\n    return g('1')\nf()\n",
    "walrus_eval": "(e := eval)('1')",
    "class_body_builtins": "class A:\n    x = __builtins__\n",
    "vars_call": "print(vars())",
    "globals_call": "print(globals())",
    "type_alias": "t = type\nprint(t(1))",
    "attrgetter_dunder": "import operator\noperator.attrgetter('__class__')(1)",
    "getattr_computed": "import os\nn = 'sys' + 'tem'\ngetattr(os, n)('id')",
    "getattr_literal_destructive": "from pathlib import Path\ngetattr(Path('input/a.txt'), 'unlink')()",
    "alias_remove": "import os\nr = os.remove\nr('input/a.txt')",
    "list_alias_unlink": "import os\nfs = [os.unlink]\nfs[0]('input/a.txt')",
    "lambda_default_open_etc": "f = lambda g=open: g('/etc/passwd').read()\nprint(f())",
    "bytes_abs_path": "print(open(b'/etc/passwd').read())",
    "pathlib_root_join": "from pathlib import Path\nprint(Path('/').joinpath('etc', 'passwd').read_text())",
    "glob_etc": "import glob\nprint(glob.glob('/etc/*'))",
    "glob_parent": "import glob\nprint(glob.glob('../*'))",
    "expanduser_getattr": "import os\nf = getattr(os.path, 'expanduser')\nprint(f('~'))",
    "path_home": "from pathlib import Path\nprint(Path.home())",
    "getenv_home_path": "import os\nprint(open(os.getenv('HOME') + '/.bashrc').read())",
    "pardir_join": "import os\nprint(os.listdir(os.path.join(os.getcwd(), os.pardir)))",
    "cwd_dotdot_string": "import os\nprint(open(os.getcwd() + '/../x').read())",
    "make_archive_root": "import shutil\nshutil.make_archive('output/all', 'zip', root_dir='/')",
    "make_archive_parent": "import shutil\nshutil.make_archive('output/all', 'zip', root_dir='..')",
    "copy_etc_passwd": "import shutil\nshutil.copy('/etc/passwd', 'output/p')",
    "copy_parent_secret": "import shutil\nshutil.copy('../secret.txt', 'output/p')",
    "windows_drive": "print(open('C:\\\\Windows\\\\win.ini').read())",
    "unc_share": "print(open('\\\\\\\\server\\\\share\\\\x').read())",
    "rmtree_output": "import shutil\nshutil.rmtree('output')",
    "shutil_move_input": "import shutil\nshutil.move('input/a.txt', 'output/a.txt')",
    "pathlib_rename": "from pathlib import Path\nPath('input/a.txt').rename('output/a.txt')",
    "path_replace": "from pathlib import Path\nPath('input/a.txt').replace(Path('output/a'))",
    "os_truncate": "import os\nos.truncate('input/a.txt', 0)",
    "tempfile_outside": "import tempfile\nprint(tempfile.mkdtemp())",
    "threading": "import threading\nthreading.Thread(target=print).start()",
    "signal_ignore": "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)",
    "mmap": "import mmap\nprint(mmap)",
    "fileinput_inplace": "import fileinput\nfor line in fileinput.input('input/a.txt', inplace=True):\n    print('X')\n",
    "dev_tcp": "open('/dev/tcp/127.0.0.1/80', 'w')",
    "shutil_os_reexport": "import shutil\nshutil.os.system('id')",
    "frame_walk": "def g():\n    yield 1\nprint(g().gi_frame.f_back)",
    "socket_import": "import socket",
    "subprocess_from": "from subprocess import run\nrun(['id'])",
    "importlib": "import importlib\nimportlib.import_module('socket')",
    "ctypes": "import ctypes",
    "pickle_gadget": "import pickle\npickle.loads(b'cos\\nsystem\\n(S\\'id\\'\\ntR.')",
    "marshal": "import marshal",
    "metaclass": "class M(type):\n    pass\nclass A(metaclass=M):\n    pass\n",
    "implicit_del": "class A:\n    def __del__(self):\n        pass\n",
    "sys_modules": "import sys\nprint(sys.modules['os'])",
    "escaped_underscore": "x = '\\x5f\\x5fclass\\x5f\\x5f'",
    "star_import": "from os import *",
}


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_escape_is_blocked(ws: Path, name: str) -> None:
    report = check_code(BLOCKED[name], ws)
    assert not report.passed, f"{name} passed the rule checker"
    assert report.violations[0].message.startswith("第 ")


# --- findings: these pass the checker and should not ------------------------------------------------------

# Fixed (was REDTEAM xfail): sensitive/protected path literals are `sensitive_path` (safety/path_uses.py).
@pytest.mark.parametrize("code", [
    "print(open('.env').read())",
    "from pathlib import Path\nprint(Path('.git/config').read_text())",
    "from pathlib import Path\nprint(Path('input/.ssh/id_rsa').read_text())",
])
def test_sensitive_literal_read_is_blocked(ws: Path, code: str) -> None:
    assert not check_code(code, ws).passed


# Fixed (was REDTEAM xfail): literal write targets outside output/ and logs/ are `write_outside_output`.
@pytest.mark.parametrize("code", [
    "open('input/a.txt', 'w').write('X')",
    "f = open('input/a.txt', 'r+')\nf.write('X')",
    "from pathlib import Path\nPath('input/a.txt').write_text('X')",
    "import shutil\nshutil.copyfile('output/x', 'input/a.txt')",
    "import os\nos.open('input/a.txt', os.O_WRONLY | os.O_TRUNC)",
])
def test_literal_write_into_input_is_blocked(ws: Path, code: str) -> None:
    assert not check_code(code, ws).passed


# By design (rule_checker docstring) a path built at run time is the runtime guard's job:
# Path.cwd().parent, os.path.dirname(os.getcwd()), chr(47) are run in test_redteam_sandbox.py.
