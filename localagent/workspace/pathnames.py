"""Pure name rules of the access policy (seed 001 §6, issue 3 §1).

No file system access here except :func:`is_system_directory` reading the home
directory: Windows path forms, reserved device names, legal file names, and the
tables of dangerous, sensitive, protected and text names. Every comparison is
done on a *folded* name (NFKC, Unicode default-ignorable code points removed,
``casefold``) on every OS, so ``.GIT``, ``.g\u200cit`` (the HFS+ trick of
CVE-2014-9390) and ``A.EXE`` are all caught. Stdlib only: the sandboxed child
imports this module too.
"""

from __future__ import annotations

import functools
import ntpath
import os
import re
import unicodedata
from pathlib import Path, PurePosixPath, PureWindowsPath

# Seed 001 §6 "禁止危险后缀", plus other Windows script/shortcut types and the
# Linux/macOS launcher files that run code when double-clicked.
DANGEROUS_SUFFIXES = frozenset({
    ".exe", ".bat", ".cmd", ".ps1", ".vbs", ".msi", ".scr", ".reg", ".com", ".pif", ".lnk",
    ".vbe", ".jse", ".wsf", ".wsh", ".hta", ".cpl", ".msc", ".msp", ".psm1", ".psd1",
    ".scf", ".url", ".jar", ".appref-ms", ".application", ".desktop", ".command",
})

# Files that are fine to create and edit in a project but that the system's default program would RUN, install or
# mount when "opened" (seed 001 §8.2 OpenFileTool: 危险后缀拒绝打开). Windows runs .js/.py/.ws* through its script
# hosts, mounts .iso/.vhd (bypassing download marks), installs .msix/.appx/.inf/.cer; macOS runs .app/.workflow/
# .terminal; Linux desktops run .AppImage/.run/.deb installers. open_file refuses these on every OS.
OPEN_UNSAFE_SUFFIXES = DANGEROUS_SUFFIXES | frozenset({
    ".js", ".py", ".pyw", ".pyc", ".pyz", ".pyzw", ".vb", ".ws", ".wsc", ".sct", ".shb", ".shs", ".ps1xml", ".psc1",
    ".psc2", ".mshxsl", ".inf", ".ins", ".isp", ".chm", ".hlp", ".gadget", ".msix", ".msixbundle", ".appx",
    ".appxbundle", ".appinstaller", ".iso", ".img", ".vhd", ".vhdx", ".settingcontent-ms", ".library-ms",
    ".search-ms", ".searchconnector-ms", ".diagcab", ".mde", ".ade", ".adp", ".mst", ".xbap", ".xll", ".dll",
    ".ocx", ".sys", ".drv", ".cer", ".crt", ".der", ".p7b", ".rdp", ".website", ".webloc", ".fileloc",
    ".inetloc", ".terminal", ".workflow", ".action", ".app", ".pkg", ".mpkg", ".run", ".appimage", ".deb",
    ".rpm", ".snap", ".flatpakref", ".sh", ".bash", ".zsh", ".csh", ".ksh", ".pl", ".rb", ".php", ".elf",
})

# Seed 001 §6 "敏感文件默认拒绝" (exact names and suffixes) and the keywords.
SENSITIVE_NAMES = frozenset({
    ".env", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials.json", "secrets.json",
    "token.json", ".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".htpasswd",
})
SENSITIVE_SUFFIXES = frozenset({
    ".pem", ".key", ".pfx", ".p12", ".p8", ".ppk", ".jks", ".keystore", ".kdbx", ".env",
})
SENSITIVE_KEYWORDS = ("secret", "token", "password", "passwd", "credential", "private",
                      "apikey", "api_key", "api-key")
# Folders whose every file is sensitive (decision documented in AccessPolicy).
SENSITIVE_DIRS = frozenset({".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker",
                            ".password-store", "secrets", ".secrets"})

# Issue 3 §1: never written, moved or deleted by a tool, at any depth.
PROTECTED_DIRS = frozenset({".git", ".localagent", ".vscode", ".idea"})

# Seed 001 §8.1 "支持后缀" plus what a user of code projects expects.
TEXT_SUFFIXES = frozenset({
    ".cpp", ".h", ".hpp", ".c", ".cc", ".py", ".js", ".ts", ".json", ".md", ".txt", ".ini",
    ".xml", ".yaml", ".yml", ".cmake", ".pro", ".css", ".html",
    ".csv", ".tsv", ".toml", ".sh", ".bash", ".zsh", ".go", ".rs", ".java", ".kt", ".kts", ".rb",
    ".php", ".sql", ".log", ".cfg", ".conf", ".rst", ".tsx", ".jsx", ".vue", ".svelte", ".scss",
    ".less", ".htm", ".cxx", ".hh", ".hxx", ".ipp", ".inl", ".m", ".mm", ".swift", ".cs", ".fs",
    ".lua", ".pl", ".pm", ".r", ".scala", ".dart", ".ex", ".exs", ".erl", ".hs", ".clj",
    ".mjs", ".cjs", ".pyi", ".ipynb", ".qml", ".ui", ".qrc", ".pri", ".gradle", ".properties",
    ".tex", ".bib", ".adoc", ".org", ".svg", ".graphql", ".proto", ".diff", ".patch", ".lock",
})
TEXT_NAMES = frozenset({
    "readme", "license", "licence", "copying", "authors", "changelog", "changes", "notice",
    "makefile", "gnumakefile", "dockerfile", "containerfile", "cmakelists.txt", "vagrantfile",
    "gemfile", "rakefile", "procfile", "jenkinsfile", "pipfile", ".gitignore", ".gitattributes",
    ".gitmodules", ".editorconfig", ".dockerignore", ".clang-format", ".prettierrc", ".eslintrc",
})
# Known binary formats: refused for reading and writing as text (seed §15 "读取图片应拒绝").
BINARY_SUFFIXES = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd", ".heic",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".zst", ".iso", ".dmg",
    ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods",
    ".dll", ".so", ".dylib", ".o", ".obj", ".a", ".lib", ".pyc", ".pyo", ".class", ".wasm",
    ".mp3", ".mp4", ".wav", ".flac", ".ogg", ".avi", ".mov", ".mkv", ".webm",
    ".ttf", ".otf", ".woff", ".woff2", ".db", ".sqlite", ".sqlite3", ".bin", ".dat", ".pdb",
})

_RESERVED_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"{d}{n}" for d in ("com", "lpt") for n in (*"0123456789", "¹", "²", "³")}
)
_ILLEGAL_CHARS = frozenset('/\\:*?"<>|')
_DRIVE = re.compile(r"^[A-Za-z]:")
_SHORT_NAME = re.compile(r"~[0-9]+$")  # 8.3 alias such as GIT~1 or PROGRA~1
MAX_NAME_BYTES = 255


def fold(name: str) -> str:
    """Return ``name`` folded for comparison: NFKC, default-ignorables removed, casefolded."""
    text = unicodedata.normalize("NFKC", name)
    if not text.isascii():
        text = "".join(ch for ch in text if not _is_ignorable(ch))
    return text.casefold()


def _is_ignorable(ch: str) -> bool:
    code = ord(ch)
    return (unicodedata.category(ch) == "Cf" or 0x115F <= code <= 0x1160 or code == 0x3164
            or 0xFE00 <= code <= 0xFE0F or code == 0xFFA0)


# Characters that draw nothing (or look like nothing) on screen, outside the Cc/Cf/Cs/Zl/Zp categories:
# Hangul fillers, the combining grapheme joiner, Khmer inherent vowels, the Braille blank.
_INVISIBLE_CODES = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0})
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Spaces a user can tell from a word gap: the ASCII space and the CJK full-width space.
_VISIBLE_SPACES = frozenset({" ", "\u3000"})


def _is_variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180F


def is_invisible_char(ch: str) -> bool:
    """Return True for a character that shows nothing, or passes for another, in a file name.

    Control (Cc), format (Cf: bidi controls U+202A–U+202E and U+2066–U+2069, marks U+200E/U+200F,
    zero-width U+200B–U+200D, U+FEFF, soft hyphen U+00AD, tags…), surrogate (Cs), line and
    paragraph separators, spaces other than U+0020 and U+3000 (U+00A0, U+2000–U+200A…), Hangul
    fillers, U+034F and the Braille blank. Variation selectors are judged by :func:`spoofing_char`
    because they are fine after an emoji.
    """
    category = unicodedata.category(ch)
    if category in _INVISIBLE_CATEGORIES or ord(ch) in _INVISIBLE_CODES:
        return True
    return category == "Zs" and ch not in _VISIBLE_SPACES


def spoofing_char(name: str) -> str | None:
    r"""Return the first character of ``name`` that hides or fakes what the name looks like, or None.

    Invisible characters (:func:`is_invisible_char`), a variation selector that does not follow a
    non-ASCII symbol (``a\ufe0f.txt`` looks like ``a.txt``; ``\u2764\ufe0f.txt`` is fine), and a
    combining mark at the start of the name (it draws on nothing). Seed 001 §8.3 "文件名必须合法".
    """
    for index, ch in enumerate(name):
        if is_invisible_char(ch) or _is_hidden_mark(name, index):
            return ch
    return None


def _is_hidden_mark(text: str, index: int) -> bool:
    """A variation selector after nothing, ASCII or another selector; a combining mark at the start."""
    ch = text[index]
    if _is_variation_selector(ord(ch)):
        before = text[index - 1] if index else ""
        return not before or before.isascii() or _is_variation_selector(ord(before))
    return index == 0 and bool(unicodedata.combining(ch))


def windows_base_name(name: str) -> str:
    """Return ``name`` as Windows reads it: stream suffix cut, trailing dots/spaces stripped, folded.

    ``"a.EXE"``, ``"a.exe."``, ``"a.exe "`` and ``"a.exe::$DATA"`` all give ``"a.exe"``.
    """
    return fold(name.split(":", 1)[0].rstrip(". "))


def name_suffix(folded: str) -> str:
    """Return the last suffix of a folded base name (``".txt"``), or ``""``; ``".env"`` counts as a name."""
    dot = folded.rfind(".")
    return folded[dot:] if dot > 0 else ""


def is_reserved_name(name: str) -> bool:
    """Return True for a Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9…), any extension, any case."""
    base = fold(name).split(".", 1)[0].rstrip(" ")
    return base in _RESERVED_DEVICES


def is_short_name_alias(name: str) -> bool:
    """Return True for a Windows 8.3 alias component such as ``GIT~1`` (it could name a protected folder)."""
    return bool(_SHORT_NAME.search(name.split(".", 1)[0]))


def legal_name_problem(name: str) -> tuple[str, str] | None:
    """Return ``(zh, en)`` saying why ``name`` is not a legal file name on Windows or POSIX, or None.

    Rules (seed 001 §8.3 "文件名必须合法", on every OS): not empty, not ``.``/``..``, none of
    ``/ \\ : * ? " < > |``, no control characters, no invisible or look-alike characters (bidi
    controls, zero-width characters, odd spaces: :func:`spoofing_char`), no trailing dot or space,
    not a reserved device name, at most 255 bytes of UTF-8. Only new names are judged: an existing
    file with such a name may still be read, listed, moved or deleted.
    """
    if not name or name in (".", ".."):
        return ("文件名为空或无效", "the file name is empty or invalid")
    if any(ch in _ILLEGAL_CHARS or ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return ("文件名含有非法字符（/ \\ : * ? \" < > | 或控制字符）",
                "the file name contains an illegal character (/ \\ : * ? \" < > | or a control character)")
    odd = spoofing_char(name)
    if odd is not None:
        code = f"U+{ord(odd):04X}"
        return (f"文件名含有不可见或易混淆的字符（{code}，如方向控制符、零宽字符），可能伪装成别的名字",
                f"the file name contains an invisible or look-alike character ({code}, such as a direction "
                "control or a zero-width character) that can disguise the name")
    if name[-1] in ". ":
        return ("文件名不能以点或空格结尾", "a file name must not end with a dot or a space")
    if is_reserved_name(name):
        return ("文件名是 Windows 保留名（CON、NUL、COM1 等）", "the name is reserved on Windows (CON, NUL, COM1, …)")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return ("文件名过长（超过 255 字节）", "the file name is too long (over 255 bytes)")
    return None


def windows_form_problem(text: str, *, on_windows: bool) -> tuple[str, str] | None:
    """Return ``(zh, en)`` if ``text`` uses a Windows path form the policy refuses, else None.

    Checked on every OS (issue 3 §1): UNC ``\\\\server\\share``, ``\\\\?\\`` and ``\\\\.\\``
    device prefixes, drive-relative ``C:foo``, drive letters at all on POSIX, and a rooted path
    without a drive on Windows. Per-component rules live in :func:`component_problem`.
    """
    if text[:2] in ("\\\\", "//", "\\/", "/\\"):
        return ("不接受 UNC 或设备路径（\\\\server、\\\\?\\、\\\\.\\）",
                "UNC and device paths (\\\\server, \\\\?\\, \\\\.\\) are not accepted")
    if _DRIVE.match(text):
        if not on_windows:
            return ("不接受 Windows 盘符路径", "Windows drive paths are not accepted here")
        if text[2:3] not in ("\\", "/"):
            return ("不接受相对盘符路径（如 C:foo）", "drive-relative paths (such as C:foo) are not accepted")
    elif on_windows and text[:1] in ("\\", "/"):
        return ("请写出盘符或使用相对路径", "give a drive letter or a relative path")
    return None


def component_problem(part: str) -> tuple[str, str] | None:
    """Return ``(zh, en)`` if one path component is refused on every OS, else None.

    Refused: alternate data streams (any ``:``), trailing dots or spaces (Windows drops them, so
    ``a.exe.`` would be ``a.exe``), reserved device names, 8.3 aliases like ``GIT~1``.
    ``.`` and ``..`` are handled by the caller.
    """
    if ":" in part:
        return ("不接受备用数据流或含冒号的名称", "alternate data streams and names with ':' are not accepted")
    if part[-1] in ". ":
        return ("路径中的名称不能以点或空格结尾", "a name in the path must not end with a dot or a space")
    if is_reserved_name(part):
        return ("路径中含有 Windows 保留名（CON、NUL、COM1 等）", "the path contains a reserved Windows name (CON, NUL, …)")
    if is_short_name_alias(part):
        return ("不接受 8.3 短文件名（如 GIT~1）", "8.3 short names (such as GIT~1) are not accepted")
    return None


def is_dangerous_name(name: str) -> bool:
    """Return True if ``name`` ends in a dangerous suffix (seed 001 §6), as Windows would read it."""
    return name_suffix(windows_base_name(name)) in DANGEROUS_SUFFIXES


def is_open_unsafe_name(name: str) -> bool:
    """Return True if the default program would run, install or mount a file of this name (see OPEN_UNSAFE_SUFFIXES)."""
    return name_suffix(windows_base_name(name)) in OPEN_UNSAFE_SUFFIXES


def is_sensitive_name(name: str) -> bool:
    """Return True if a file name is sensitive (seed 001 §6): exact names, ``.env*``, suffixes, keywords."""
    base = windows_base_name(name)
    if base in SENSITIVE_NAMES or base.startswith(".env.") or name_suffix(base) in SENSITIVE_SUFFIXES:
        return True
    if base.split(".", 1)[0] in ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"):
        return True
    return any(word in base for word in SENSITIVE_KEYWORDS)


def is_sensitive_dir_name(name: str) -> bool:
    """Return True for a folder whose files are all sensitive (``.ssh``, ``.aws``, ``secrets`` …)."""
    return windows_base_name(name) in SENSITIVE_DIRS


def is_protected_name(name: str) -> bool:
    """Return True for a protected folder name (``.git``, ``.localagent``, ``.vscode``, ``.idea``), any case."""
    return windows_base_name(name) in PROTECTED_DIRS


def is_text_name(name: str) -> bool:
    """Return True if a file name is a supported text file (seed 001 §8.1 list plus common ones)."""
    base = windows_base_name(name)
    if base in TEXT_NAMES or base.split(".", 1)[0] in TEXT_NAMES:
        return name_suffix(base) not in DANGEROUS_SUFFIXES | BINARY_SUFFIXES
    return name_suffix(base) in TEXT_SUFFIXES


def is_binary_name(name: str) -> bool:
    """Return True for a known binary format (images, archives, office files, objects, media)."""
    return name_suffix(windows_base_name(name)) in BINARY_SUFFIXES


# --- system directories (issue 2 part 13, issue 3 §1) ---------------------------------------

# Never a workspace and never entered, with everything below them.
_POSIX_TREES = frozenset({"etc", "usr", "bin", "sbin", "boot", "dev", "proc", "sys", "system",
                          "library", "private/etc", "var/lib", "var/log", "var/db", "run", "snap"})
_POSIX_LIB = re.compile(r"^lib(32|64|x32|exec)?$")
# Never a workspace themselves; their subfolders are fine (/var/folders is macOS's temp dir).
_POSIX_EXACT = frozenset({"", "var", "home", "users", "root", "opt", "srv", "mnt", "media",
                          "applications", "private", "private/var", "volumes", "cores", "tmp",
                          "private/tmp", "var/tmp"})
_WINDOWS_TREES = frozenset({"windows", "program files", "program files (x86)", "programdata",
                            "$recycle.bin", "system volume information", "recovery"})
_WINDOWS_EXACT = frozenset({"", "users", "users/public", "documents and settings"})


def looks_like_windows_path(text: str) -> bool:
    """Return True if ``text`` starts with a drive letter or a UNC/device prefix."""
    return bool(_DRIVE.match(text)) or text[:2] in ("\\\\", "//") or (os.name == "nt" and text[:1] in "\\/")


def is_system_directory(path: str | os.PathLike[str]) -> bool:
    """Return True if ``path`` is, or lies inside, a system directory (never a workspace, never entered).

    Both POSIX and Windows forms are judged on every OS, casefolded. Trees (the folder and all
    below): ``/etc /usr /bin /sbin /lib* /boot /dev /proc /sys /run /System /Library``,
    ``C:\\Windows``, ``C:\\Program Files``, ``C:\\Program Files (x86)``, ``C:\\ProgramData`` (any
    drive). The folder itself only: ``/``, any drive root or UNC share root, ``/var``, ``/home``,
    ``/Users``, ``/opt``, ``/tmp``, ``C:\\Users``, and the home directory itself (its
    subfolders, ``/tmp/...`` and ``/var/folders/...`` are fine). Lexical: pass a resolved path
    to judge where a link really points.

    Args:
        path: an absolute path string or path object; a relative path is never a system directory.

    Returns:
        True when refused.
    """
    text = os.fspath(path)
    if "\x00" in text:
        return True
    if looks_like_windows_path(text):
        return _is_windows_system(PureWindowsPath(text))
    if not text.startswith("/"):
        return False
    pure = PurePosixPath(os.path.normpath(text).replace("\\", "/"))
    rel = fold(pure.as_posix().lstrip("/"))
    if rel in _POSIX_EXACT or _is_home(text):
        return True
    parts = rel.split("/")
    if _POSIX_LIB.match(parts[0]):
        return True
    return any("/".join(parts[:n]) in _POSIX_TREES for n in (1, 2))


def _is_windows_system(pure: PureWindowsPath) -> bool:
    if not pure.anchor or not pure.root:
        return True  # drive-relative "C:foo" or a bare drive is refused outright
    rest = [fold(p) for p in PureWindowsPath(ntpath.normpath(str(pure))).parts[1:]]
    if "/".join(rest) in _WINDOWS_EXACT or _is_home(str(pure)):
        return True
    return bool(rest) and rest[0] in _WINDOWS_TREES


def _is_home(text: str) -> bool:
    key = (os.environ.get("HOME"), os.environ.get("USERPROFILE"), os.environ.get("HOMEDRIVE"),
           os.environ.get("HOMEPATH"))
    return fold(os.path.normpath(text)) in _home_forms(key)


@functools.lru_cache(maxsize=8)
def _home_forms(_env_key: tuple[str | None, ...]) -> frozenset[str]:
    """The home directory as given and resolved, folded; cached per home-related environment."""
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):
        return frozenset()
    return frozenset({fold(os.path.normpath(str(home))), fold(os.path.realpath(home))})


# --- whole-path helpers used by the policy --------------------------------------------------

_SEPARATORS = re.compile(r"[\\/]")


def split_names(text: str) -> list[str]:
    """Split on both separators (``\\`` is a separator on every OS), dropping empty parts."""
    return [p for p in _SEPARATORS.split(text) if p]


def show(text: str) -> str:
    r"""Return ``text`` safe for a message: at most 200 characters, control and invisible characters escaped.

    ``"report\u202efdp.txt"`` is shown as ``report\\u202efdp.txt``, so a bidi override or a
    zero-width character in an existing name cannot make a message lie about the name
    (:func:`escape_invisible`).
    """
    return escape_invisible(text[:200]) + ("…" if len(text) > 200 else "")


def escape_invisible(text: str) -> str:
    r"""Return ``text`` with control and invisible characters written as escapes (``\u202e``, ``\n``).

    Escaped: what :func:`is_invisible_char` names and a stray variation selector or leading
    combining mark; everything visible (CJK, accents, emoji) is kept. Any length.
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(_show_char(text, i) for i in range(len(text)))


def _show_char(text: str, index: int) -> str:
    ch = text[index]
    if ch in _VISIBLE_SPACES or (ch.isprintable() and not is_invisible_char(ch) and not _is_hidden_mark(text, index)):
        return ch
    escaped = repr(ch)[1:-1]
    if escaped != ch:
        return escaped
    return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"


def text_problem(text: str, *, on_windows: bool) -> tuple[str, str] | None:
    """Return ``(zh, en)`` if a whole path string is refused before any resolution, else None.

    Refused: empty or blank, NUL or other control characters, a ``~``/``~user`` prefix (never
    expanded), and the Windows forms of :func:`windows_form_problem`.
    """
    if not text.strip():
        return ("路径为空", "the path is empty")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        return ("路径含有控制字符或空字节", "the path contains a control character or a NUL byte")
    if text.startswith("~"):
        return ("不接受以 ~ 开头的路径（不会展开主目录）", "paths starting with ~ are not accepted (never expanded)")
    return windows_form_problem(text, on_windows=on_windows)


def sensitive_parts(parts: tuple[str, ...] | list[str]) -> bool:
    """Return True if the last name is sensitive or any name on the way is a credential folder."""
    if not parts:
        return False
    return is_sensitive_name(parts[-1]) or any(is_sensitive_dir_name(p) for p in parts)


def protected_parts(parts: tuple[str, ...] | list[str]) -> bool:
    """Return True if any name on the way is a protected folder (``.git`` …), any case."""
    return any(is_protected_name(p) for p in parts)
