"""The access policy as a table of paths (seed 001 §6, §15; issue 3 §1).

One tree in ``tmp_path`` holds ordinary, sensitive, dangerous, protected and binary
files, symlinks pointing in and out, a FIFO, and sibling folders ``outside`` and
``ws-evil`` (to prove containment is by components, not string prefix). Every row
says what each ``can_*`` gate answers: A = allowed, D = denied.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from localagent.errors import PathDenied, WorkspaceError
from localagent.workspace.policy import AccessPolicy, PolicyDecision, is_legal_file_name, is_within

FILES = {
    "README.md": "# demo\n", "main.cpp": "int main() {}\n", "notes.txt": "notes\n", "data.json": "{}\n",
    "docs/guide.md": "guide\n", "中文 目录/说明.txt": "说明\n", "with space/a b.txt": "ab\n",
    "image.png": "\x89PNG\x00", "tool.exe": "MZ\x00", "run.bat": "echo\n", ".env": "KEY=1\n",
    ".env.local": "KEY=2\n", "id_rsa": "key\n", "server.key": "key\n", "my_secret.txt": "s\n",
    "tokenizer.py": "x = 1\n", ".ssh/config": "Host x\n", ".git/config": "[core]\n",
    ".vscode/settings.json": "{}\n", ".localagent/journal.json": "[]\n", "nested_repo/.git/HEAD": "ref\n",
    "nested_repo/code.py": "pass\n",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("tree")
    ws = base / "ws"
    for rel, text in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    (ws / "empty_dir").mkdir()
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("outside secret\n")
    (base / "ws-evil").mkdir()
    (base / "ws-evil" / "x.txt").write_text("evil\n")
    os.symlink(ws / "notes.txt", ws / "link_in_file")
    os.symlink(ws / "docs", ws / "link_in_dir")
    os.symlink(base / "outside" / "secret.txt", ws / "link_out_file")
    os.symlink(base / "outside", ws / "link_out_dir")
    os.symlink("notes.txt", ws / "relative_link")
    os.symlink(ws / "loop_b", ws / "loop_a")
    os.symlink(ws / "loop_a", ws / "loop_b")
    os.mkfifo(ws / "fifo")
    return ws


@pytest.fixture(scope="module")
def policy(tree) -> AccessPolicy:
    return AccessPolicy(tree)


#        path                              read_file read_dir create_file create_dir write delete
ROWS = [
    ("README.md",                            "ADDDAA"),
    ("main.cpp",                             "ADDDAA"),
    ("data.json",                            "ADDDAA"),
    ("./notes.txt",                          "ADDDAA"),
    ("docs/../notes.txt",                    "ADDDAA"),
    ("docs//guide.md",                       "ADDDAA"),
    ("docs\\guide.md",                       "ADDDAA"),
    ("docs\\..\\notes.txt",                  "ADDDAA"),
    ("中文 目录/说明.txt",                    "ADDDAA"),
    ("with space/a b.txt",                   "ADDDAA"),
    ("{ABS_IN}",                             "ADDDAA"),
    ("docs",                                 "DADDDA"),
    ("docs/",                                "DADDDA"),
    ("empty_dir",                            "DADDDA"),
    (".",                                    "DADDDD"),
    ("new.txt",                              "DDAADD"),
    ("docs/new.md",                          "DDAADD"),
    ("missing/new.md",                       "DDDADD"),
    ("新建 文件.txt",                         "DDAADD"),
    ("{LONG_OK}",                            "DDAADD"),
    ("{LONG_BAD}",                           "DDDDDD"),
    ("{LONG_CJK}",                           "DDDDDD"),
    ("image.png",                            "DDDDDA"),
    ("tool.exe",                             "DDDDDA"),
    ("run.bat",                              "DDDDDA"),
    ("new.ps1",                              "DDDDDD"),
    ("new.EXE",                              "DDDDDD"),
    ("new.Lnk",                              "DDDDDD"),
    ("a.exe.",                               "DDDDDD"),
    ("a.exe ",                               "DDDDDD"),
    ("a.exe::$DATA",                         "DDDDDD"),
    ("notes.txt:secret",                     "DDDDDD"),
    ("notes.txt::$DATA",                     "DDDDDD"),
    (".env",                                 "DDDDDD"),
    (".env.local",                           "DDDDDD"),
    ("new.env",                              "DDDDDD"),
    ("id_rsa",                               "DDDDDD"),
    ("server.key",                           "DDDDDD"),
    ("cert.PEM",                             "DDDDDD"),
    ("my_secret.txt",                        "DDDDDD"),
    ("API_KEY.txt",                          "DDDDDD"),
    ("credentials.json",                     "DDDDDD"),
    ("tokenizer.py",                         "DDDDDD"),  # the seed's keyword rule: "token" anywhere
    (".ssh/config",                          "DDDDDD"),
    (".ssh",                                 "DDDDDD"),
    (".git/config",                          "ADDDDD"),
    (".git",                                 "DADDDD"),
    (".GIT/new.txt",                         "DDDDDD"),
    (".Git/config",                          "DDDDDD"),
    (".vscode/settings.json",                "ADDDDD"),
    (".localagent/journal.json",             "ADDDDD"),
    (".localagent/new.txt",                  "DDDDDD"),
    (".idea/workspace.xml",                  "DDDDDD"),
    ("docs/.git/x",                          "DDDDDD"),
    (".g\u200cit/new.txt",                   "DDDDDD"),
    ("GIT~1/config",                         "DDDDDD"),
    (".git./x",                              "DDDDDD"),
    ("nested_repo",                          "DADDDD"),
    ("nested_repo/code.py",                  "ADDDAA"),
    ("",                                     "DDDDDD"),
    ("   ",                                  "DDDDDD"),
    ("../outside/secret.txt",                "DDDDDD"),
    ("../ws-evil/x.txt",                     "DDDDDD"),
    ("{ABS_EVIL}",                           "DDDDDD"),
    ("{ABS_OUT}",                            "DDDDDD"),
    ("../ws/notes.txt",                      "DDDDDD"),
    ("docs/../../ws/notes.txt",              "DDDDDD"),
    ("sub\\..\\..\\x",                       "DDDDDD"),
    ("/etc/passwd",                          "DDDDDD"),
    ("/etc",                                 "DDDDDD"),
    ("/",                                    "DDDDDD"),
    ("~/notes.txt",                          "DDDDDD"),
    ("~root/x",                              "DDDDDD"),
    ("C:\\Windows\\win.ini",                 "DDDDDD"),
    ("C:foo.txt",                            "DDDDDD"),
    ("c:/notes.txt",                         "DDDDDD"),
    ("\\\\server\\share\\x.txt",             "DDDDDD"),
    ("//server/share/x.txt",                 "DDDDDD"),
    ("\\\\?\\C:\\x.txt",                     "DDDDDD"),
    ("\\\\.\\PhysicalDrive0",                "DDDDDD"),
    ("CON",                                  "DDDDDD"),
    ("con.txt",                              "DDDDDD"),
    ("NUL.tar.gz",                           "DDDDDD"),
    ("Com1.log",                             "DDDDDD"),
    ("docs/aux.md",                          "DDDDDD"),
    ("x\x00y.txt",                           "DDDDDD"),
    ("x\ny.txt",                             "DDDDDD"),
    ("notes.txt ",                           "DDDDDD"),
    ("docs.",                                "DDDDDD"),
    ("a*b.txt",                              "DDDDDD"),
    ("a?.txt",                               "DDDDDD"),
    ('a"b.txt',                              "DDDDDD"),
    ("a<b>.txt",                             "DDDDDD"),
    ("a|b.txt",                              "DDDDDD"),
    ("link_in_file",                         "ADDDDD"),
    ("relative_link",                        "ADDDDD"),
    ("link_in_dir",                          "DADDDD"),
    ("link_in_dir/guide.md",                 "ADDDDD"),
    ("link_in_dir/new.md",                   "DDDDDD"),
    ("link_out_file",                        "DDDDDD"),
    ("link_out_dir",                         "DDDDDD"),
    ("link_out_dir/secret.txt",              "DDDDDD"),
    ("link_out_dir/new.txt",                 "DDDDDD"),
    ("link_out_dir/../notes.txt",            "DDDDDD"),
    ("loop_a",                               "DDDDDD"),
    ("loop_a/x.txt",                         "DDDDDD"),
    ("fifo",                                 "DDDDDA"),
]
GATES = ("can_read_file", "can_read_directory", "can_create_file", "can_create_directory", "can_write_file",
         "can_delete_to_trash")


def _expand(path: str, tree: Path) -> str:
    return path.format(ABS_IN=tree / "notes.txt", ABS_EVIL=tree.parent / "ws-evil" / "x.txt",
                       ABS_OUT=tree.parent / "outside" / "secret.txt", LONG_OK="a" * 251 + ".txt",
                       LONG_BAD="a" * 252 + ".txt", LONG_CJK="中" * 84 + ".txt")


def test_table_is_big_enough():
    assert len(ROWS) >= 60


@pytest.mark.parametrize(("path", "expected"), ROWS, ids=[repr(r[0])[:40] for r in ROWS])
def test_gate_table(policy, tree, path, expected):
    path = _expand(path, tree)
    got = ""
    for gate in GATES:
        decision = getattr(policy, gate)(path)
        assert isinstance(decision, PolicyDecision)
        assert bool(decision) == decision.allowed
        got += "A" if decision else "D"
        if not decision:
            assert decision.reason and decision.reason_en, (gate, path)
    assert got == expected, dict(zip(GATES, got, strict=True))


MOVES = [
    ("notes.txt", "docs/notes.txt", True),
    ("notes.txt", "renamed.md", True),
    ("中文 目录/说明.txt", "with space/说明 2.txt", True),
    ("notes.txt", "README.md", False),          # target exists: never overwrite
    ("notes.txt", "notes.txt", False),
    ("notes.txt", "../outside/n.txt", False),
    ("notes.txt", "link_out_dir/n.txt", False),
    ("notes.txt", "missing/n.txt", False),
    ("notes.txt", "bad:name.txt", False),
    ("notes.txt", "CON.txt", False),
    ("notes.txt", "n.exe", False),
    ("notes.txt", ".git/n.txt", False),
    ("notes.txt", ".env", False),
    ("docs", "docs2", True),                    # a folder may be renamed
    ("docs", "with space/docs", True),
    ("docs", "docs/inner", False),              # not into itself
    ("docs", "link_in_dir/docs", False),
    ("nested_repo", "repo2", False),            # holds .git
    (".git", "git2", False),
    (".ssh", "ssh2", False),
    ("docs", "x.exe", False),
    ("empty_dir", "docs", False),               # exists
    (".", "root2", False),
    ("fifo", "fifo2", False),
    (".env", "env.txt", False),
    (".git/config", "config.txt", False),
    ("tool.exe", "tool.txt", False),
    ("link_in_file", "n2.txt", False),
    ("../ws-evil/x.txt", "x.txt", False),
    ("missing.txt", "x.txt", False),
]


@pytest.mark.parametrize(("source", "target", "allowed"), MOVES)
def test_move_table(policy, source, target, allowed):
    assert bool(policy.can_move_file(source, target)) is allowed


def test_gates_fail_closed_on_odd_input(policy):
    for odd in (None, 123, b"notes.txt", ["notes.txt"], object()):
        for gate in GATES:
            decision = getattr(policy, gate)(odd)
            assert not decision and decision.reason
        assert not policy.can_move_file(odd, "x.txt")
        assert not policy.is_inside_workspace(odd)
        assert policy.is_sensitive_file(odd) and policy.is_protected_path(odd) and policy.is_system_path(odd)


def test_decision_value_and_messages():
    assert PolicyDecision(True) and not PolicyDecision(False, "不行", "no")
    assert PolicyDecision(False, "不行", "no").message("en") == "no"
    assert PolicyDecision(False, "不行", "no").message("zh") == "不行"
    assert PolicyDecision(True) == PolicyDecision(True)
    with pytest.raises(PathDenied) as info:
        PolicyDecision(False, "不行", "no").raise_if_denied()
    assert info.value.message("en") == "no"


def test_is_within_compares_components():
    assert is_within(Path("/ws/a/b"), Path("/ws")) and is_within(Path("/ws"), Path("/ws"))
    assert not is_within(Path("/ws-evil/x"), Path("/ws"))
    assert not is_within(Path("/w"), Path("/ws"))
    assert not is_within(Path("ws/a"), Path("ws"))


def test_resolve_and_relative_forms(policy, tree):
    assert policy.resolve("docs\\..\\notes.txt") == tree / "notes.txt"
    assert policy.resolve("link_in_file") == tree / "notes.txt"
    assert policy.resolve("new/deeper.txt") == tree / "new" / "deeper.txt"
    assert policy.resolve(Path("docs")) == tree / "docs"
    assert policy.to_relative_path(tree / "docs" / "guide.md") == "docs/guide.md"
    assert policy.to_relative_path(".") == "."
    assert policy.normalize_path("a\\b/../c/./d") == "a/c/d"
    assert policy.to_absolute_path("x/../y") == tree / "y"
    with pytest.raises(PathDenied):
        policy.to_relative_path("../outside/secret.txt")
    with pytest.raises(PathDenied):
        policy.resolve("link_in_file", for_write=True)
    with pytest.raises(PathDenied) as info:
        policy.resolve("link_out_dir/secret.txt")
    assert "链接" in info.value.message("zh") and "link" in info.value.message("en")


def test_questions(policy, tree):
    assert policy.is_inside_workspace("docs/guide.md") and not policy.is_inside_workspace("link_out_file")
    assert policy.has_symlink_segment("link_in_dir/guide.md") and policy.has_symlink_segment("link_out_file")
    assert not policy.has_symlink_segment("docs/guide.md") and not policy.has_symlink_segment(tree / "docs")
    assert policy.is_system_path("/usr/bin") and policy.is_system_path("C:\\Windows\\System32")
    assert not policy.is_system_path("docs")
    for name in ("a.exe", "A.EXE", "a.exe.", "a.exe ", "a.exe::$DATA", "dir/b.Bat", "c.ps1", "x.lnk", "y.MSI"):
        assert policy.is_dangerous_suffix(name), name
    for name in ("a.txt", "exe", "a.exe.txt", "run.sh"):
        assert not policy.is_dangerous_suffix(name), name
    for name in (".env", ".ENV", ".env.production", "a/.env", "x.pem", "x.KEY", "id_ed25519", "id_rsa.pub", "a.pfx",
                 "b.p12", "secrets.json", "token.json", "MyPassword.txt", "apikey.txt", ".ssh/known_hosts",
                 "link_out_file/../.env"):
        assert policy.is_sensitive_file(name), name
    for name in ("notes.txt", "main.cpp", "environment.md", "keys.md", "privacy.md"):
        assert not policy.is_sensitive_file(name), name
    for name in (".git/config", ".GIT/HEAD", "a/.Localagent/x", ".vscode", ".IDEA/x.xml", "a\\.git\\b"):
        assert policy.is_protected_path(name), name
    assert not policy.is_protected_path("docs/git/x") and not policy.is_protected_path(".github/workflows/ci.yml")
    for name in ("a.py", "A.CPP", "x.md", "Makefile", "README", "LICENSE", "Dockerfile", ".gitignore", "a.toml",
                 "CMakeLists.txt", "x.csv", "z.rs"):
        assert policy.is_supported_text_file(name), name
    for name in ("a.png", "a.exe", "a.bat", "a.bin", "a"):
        assert not policy.is_supported_text_file(name), name


def test_legal_file_names():
    for good in ("a.txt", "中文 名字.md", "a b", ".hidden", "a" * 255, "com10.txt", "console.log"):
        assert is_legal_file_name(good), good
    for bad in ("", ".", "..", "a/b", "a\\b", "a:b", "a*", "a?", 'a"', "a<", "a>", "a|", "a\x01", "a.", "a ",
                "CON", "con.txt", "Nul", "AUX.tar.gz", "com1", "LPT9.md", "a" * 256, "中" * 86):
        decision = is_legal_file_name(bad)
        assert not decision and decision.reason and decision.reason_en, bad


def test_root_must_be_a_usable_folder(tmp_path):
    with pytest.raises(WorkspaceError):
        AccessPolicy(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WorkspaceError):
        AccessPolicy(tmp_path / "file.txt")
    for system in ("/", "/etc", "/usr", "C:\\Windows", "C:/Program Files", Path.home()):
        with pytest.raises(WorkspaceError) as info:
            AccessPolicy(system)
        assert "系统目录" in info.value.message("zh")
    assert AccessPolicy(str(tmp_path)).root == tmp_path.resolve()


def test_root_through_a_link_is_resolved(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.txt").write_text("a")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    policy = AccessPolicy(tmp_path / "alias")
    assert policy.root == (tmp_path / "real").resolve()
    assert policy.resolve(tmp_path / "alias" / "a.txt") == policy.root / "a.txt"
    assert policy.can_write_file(tmp_path / "alias" / "a.txt")


def test_credential_folder_as_root_makes_everything_sensitive(tmp_path):
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "notes.txt").write_text("x")
    policy = AccessPolicy(tmp_path / ".ssh")
    assert not policy.can_read_file("notes.txt") and policy.is_sensitive_file("notes.txt")


# --- open_for_read and the check after opening ----------------------------------------------

def test_open_for_read_normal_and_refused(policy, tree):
    with policy.open_for_read("docs/guide.md") as handle:
        assert handle.read() == b"guide\n"
    with policy.open_for_read("link_in_file") as handle:
        assert handle.read() == b"notes\n"
    for refused in ("link_out_file", ".env", "../outside/secret.txt", "fifo", "docs"):
        with pytest.raises(PathDenied):
            policy.open_for_read(refused).close()
    with pytest.raises(FileNotFoundError):
        policy.open_for_read("missing.txt")


def test_swap_after_resolve_is_caught_by_verify(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside.txt"
    ws.mkdir()
    outside.write_text("outside secret")
    (ws / "a.txt").write_text("inside")
    policy = AccessPolicy(ws)
    checked = policy.resolve("a.txt")
    (ws / "a.txt").unlink()
    os.symlink(outside, ws / "a.txt")          # the swap between check and use
    fd = os.open(checked, os.O_RDONLY)          # a naive open follows the new link
    try:
        with pytest.raises(PathDenied):
            policy.verify_same_file(fd, checked)
    finally:
        os.close(fd)
    with pytest.raises(PathDenied):
        policy.open_for_read("a.txt").close()


def test_replaced_file_after_open_is_caught(tmp_path):
    policy = AccessPolicy(tmp_path)
    (tmp_path / "a.txt").write_text("old")
    fd = os.open(policy.resolve("a.txt"), os.O_RDONLY)
    try:
        os.replace(tmp_path / "a.txt", tmp_path / "b.txt")
        (tmp_path / "a.txt").write_text("new")
        with pytest.raises(PathDenied):
            policy.verify_same_file(fd, tmp_path / "a.txt")
    finally:
        os.close(fd)


@pytest.mark.skipif(sys.platform == "win32", reason="symlink swapping race needs POSIX rename semantics")
def test_racing_swaps_never_leak_outside_content(tmp_path):
    """A thread keeps swapping a file and a folder for links to outside; no read ever returns outside bytes."""
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.txt").write_text("OUTSIDE")
    policy = AccessPolicy(ws)
    stop = threading.Event()

    def swapper() -> None:
        inside_file, inside_dir = ws / "d" / "a.txt", ws / "d"
        while not stop.is_set():
            inside_file.write_text("inside")
            tmp = ws / "swap.tmp"
            os.symlink(tmp_path / "out" / "a.txt", tmp)
            os.replace(tmp, inside_file)         # file → link to outside
            os.replace(inside_dir, ws / "d.bak")
            os.symlink(tmp_path / "out", ws / "dlink")
            os.replace(ws / "dlink", inside_dir)  # folder → link to outside
            os.unlink(inside_dir)
            os.replace(ws / "d.bak", inside_dir)
            os.unlink(inside_file)

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    opened = 0  # successful reads; each was checked above
    try:
        for _ in range(3000):
            try:
                with policy.open_for_read("d/a.txt") as handle:
                    assert handle.read() != b"OUTSIDE"
                    opened += 1
            except (PathDenied, OSError):
                pass
    finally:
        stop.set()
        thread.join()
    assert stat.S_ISDIR(os.lstat(ws / "d").st_mode)


def test_case_only_rename_of_the_same_entry_is_not_an_overwrite(tmp_path):
    """On a case-insensitive disk ``A.txt`` "exists" as ``a.txt`` itself; a hard link stands in for that here."""
    (tmp_path / "a.txt").write_text("a")
    os.link(tmp_path / "a.txt", tmp_path / "A.txt")
    (tmp_path / "b.txt").write_text("b")
    policy = AccessPolicy(tmp_path)
    assert policy.can_move_file("a.txt", "A.txt")
    assert not policy.can_move_file("b.txt", "A.txt")
    assert not policy.can_move_file("a.txt", "b.txt")
