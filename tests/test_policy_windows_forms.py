"""Windows path forms are judged on every OS (issue 3 §1, seed 001 §6).

The policy must refuse drive-relative paths, UNC and device prefixes, alternate
data streams, reserved names, trailing dots and spaces, 8.3 aliases and backslash
escapes whatever OS the tests run on; the pure rules in ``pathnames`` take an
explicit ``on_windows`` flag so the Windows answers are tested here too.
"""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

import pytest

from localagent.errors import PathDenied
from localagent.workspace import pathnames
from localagent.workspace.policy import AccessPolicy, is_legal_file_name, is_system_directory, is_within

REFUSED_EVERYWHERE = [
    "C:foo.txt", "c:..\\x", "\\\\server\\share\\a.txt", "//server/share/a.txt", "\\\\?\\C:\\Windows",
    "\\\\?\\UNC\\server\\share", "\\\\.\\COM1", "\\\\.\\pipe\\x", "/\\server\\share", "a.txt:secret",
    "a.txt::$DATA", "a.txt:Zone.Identifier:$DATA", "dir:stream\\x.txt", "CON", "con", "CoN.txt", "PRN.md",
    "AUX", "nul.tar.gz", "COM1", "com9.txt", "LPT1", "lpt9.log", "COM¹", "CONIN$", "conout$", "docs\\NUL",
    "NUL .txt", "a.", "a..", "a ", "a. ", "dir.\\x.txt", "dir \\x.txt", "...", "PROGRA~1\\x", "GIT~1",
    "sub\\..\\..\\x", "..\\x", "a\\..\\..\\..\\etc\\passwd", "\\..\\x",
]


@pytest.fixture()
def policy(tmp_path) -> AccessPolicy:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("a")
    return AccessPolicy(tmp_path)


@pytest.mark.parametrize("path", REFUSED_EVERYWHERE)
def test_windows_forms_refused_on_every_os(policy, path):
    with pytest.raises(PathDenied) as info:
        policy.resolve(path)
    assert info.value.message("zh") and info.value.message("en")
    for gate in ("can_read_file", "can_create_file", "can_create_directory", "can_write_file", "can_delete_to_trash"):
        assert not getattr(policy, gate)(path), gate
    assert not policy.is_inside_workspace(path)


def test_backslash_is_a_separator_on_every_os(policy, tmp_path):
    assert policy.resolve("sub\\..\\a.txt") == tmp_path / "a.txt"
    assert policy.resolve("sub\\new.txt") == tmp_path / "sub" / "new.txt"
    assert policy.can_create_file("sub\\new.txt")


@pytest.mark.parametrize(("text", "on_windows", "refused"), [
    ("C:\\work\\a.txt", True, False),
    ("C:/proj/a.txt", True, False),
    ("C:\\work\\a.txt", False, True),
    ("C:work", True, True),
    ("C:", True, True),
    ("\\work", True, True),
    ("/work", True, True),
    ("/work", False, False),
    ("\\\\server\\share", True, True),
    ("\\\\?\\C:\\x", True, True),
    ("\\\\.\\C:", False, True),
    ("work\\a.txt", True, False),
])
def test_windows_form_rules_for_both_oses(text, on_windows, refused):
    assert (pathnames.windows_form_problem(text, on_windows=on_windows) is not None) is refused


@pytest.mark.parametrize("name", [
    "a.exe", "A.EXE", "a.Exe", "a.exe.", "a.exe ", "a.exe. .", "a.exe::$DATA", "a.exe:stream", "a.txt.exe",
    "ａ.ＥＸＥ", "x.bat", "x.CMD", "x.ps1", "x.vbs", "x.msi", "x.scr", "x.reg", "x.com", "x.pif", "x.lnk",
])
def test_dangerous_suffix_as_windows_reads_it(name):
    assert pathnames.is_dangerous_name(name)


@pytest.mark.parametrize("name", ["a.txt", "a.exe.txt", "exe", ".exe", "a.execute", "a.command.md"])
def test_not_dangerous(name):
    assert not pathnames.is_dangerous_name(name)


@pytest.mark.parametrize("name", [".git", ".GIT", ".Git", ".git.", ".git ", ".git::$INDEX_ALLOCATION", ".g\u200cit",
                                  ".gi\ufefft", ".LOCALAGENT", ".VsCode", ".idea"])
def test_protected_names_fold_case_and_tricks(name):
    assert pathnames.is_protected_name(name)


@pytest.mark.parametrize("name", [".github", "git", ".gitignore", "idea", ".vscode-test"])
def test_not_protected(name):
    assert not pathnames.is_protected_name(name)


@pytest.mark.parametrize("name", ["CON", "con", "Con.txt", "NUL.tar.gz", "aux", "PRN.", "COM1", "com0", "LPT9",
                                  "COM²", "CONOUT$", "con .txt"])
def test_reserved_names(name):
    assert pathnames.is_reserved_name(name)
    assert not is_legal_file_name(name)


@pytest.mark.parametrize("name", ["console", "CONTRIBUTING.md", "com10", "lpt", "nullable.py", "auxiliary.c"])
def test_not_reserved(name):
    assert not pathnames.is_reserved_name(name)


@pytest.mark.parametrize(("path", "system"), [
    ("C:\\Windows", True), ("c:\\windows\\system32\\drivers", True), ("C:/WINDOWS", True),
    ("C:\\Program Files", True), ("C:\\program files\\app", True), ("C:\\Program Files (x86)", True),
    ("C:\\ProgramData\\x", True), ("D:\\Windows", True), ("C:\\", True), ("D:/", True), ("C:", True),
    ("C:relative", True), ("\\\\server\\share", True), ("\\\\server\\share\\", True), ("C:\\Users", True),
    ("C:\\Users\\bob\\projects", False), ("D:\\work\\项目", False), ("\\\\server\\share\\proj", False),
    ("C:\\Users\\bob\\Program Files", False), ("E:\\data\\Windows Apps", False),
])
def test_windows_system_directories(path, system):
    assert is_system_directory(path) is system


@pytest.mark.parametrize(("path", "system"), [
    ("/", True), ("/etc", True), ("/etc/ssh", True), ("/usr", True), ("/usr/local/lib", True), ("/bin", True),
    ("/sbin", True), ("/lib", True), ("/lib64", True), ("/boot", True), ("/dev", True), ("/proc/1", True),
    ("/sys", True), ("/var", True), ("/System", True), ("/System/Library", True), ("/Library", True),
    ("/Applications", True), ("/home", True), ("/Users", True), ("/private/etc", True), ("/tmp", True),
    ("/tmp/project", False), ("/home/bob/projects", False), ("/Users/bob/code", False),
    ("/var/folders/xy/T/pytest", False), ("/opt/code/proj", False), ("/library-stuff/x", False),
    ("/etcetera", False), ("relative/etc", False),
])
def test_posix_system_directories(path, system):
    assert is_system_directory(path) is system


def test_home_directory_itself_but_not_below():
    home = Path.home()
    assert is_system_directory(home) and is_system_directory(str(home) + "/")
    assert not is_system_directory(home / "projects")


def test_is_within_is_case_insensitive_for_windows_paths():
    root = PureWindowsPath("C:\\Work\\Proj")
    assert is_within(PureWindowsPath("c:\\work\\proj\\A.txt"), root)
    assert not is_within(PureWindowsPath("C:\\Work\\Proj-evil\\a.txt"), root)
    assert not is_within(PureWindowsPath("D:\\Work\\Proj\\a.txt"), root)
