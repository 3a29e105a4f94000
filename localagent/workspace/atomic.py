"""Writes that lose nothing: atomic replace, exclusive create, no-overwrite moves (seed 001 §8.3, v1d).

Every function here either completes or leaves the target as it was:

* :func:`atomic_write_bytes` / :func:`atomic_write_text` write a temporary file in the
  target's own folder, ``fsync`` it and ``os.replace`` it over the target, so a crash
  (even ``kill -9``) leaves the old content or the new, never a mix.
* :func:`create_exclusive`, :func:`copy_no_replace` and :func:`rename_no_replace`
  never overwrite an existing path, even when another process creates it at the same
  moment (a hard link fails with ``EEXIST``; Windows' rename refuses existing targets).

Temporary files are named ``.<name>.<random>.latmp`` so they can never be mistaken for
the target. These helpers know nothing about the workspace: callers resolve paths
through :class:`localagent.workspace.policy.AccessPolicy` first.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import shutil
import stat
from pathlib import Path

TEMP_SUFFIX = ".latmp"
_CHUNK_BYTES = 1024 * 1024
# errno values meaning "this filesystem cannot make hard links" (FAT, some network shares).
_NO_LINK_ERRNOS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK,
                   getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Replace (or create) ``path`` with ``data`` atomically.

    A temporary file in the same folder is written, flushed and ``fsync``-ed, given the
    original's permission bits when replacing, then renamed over the target with
    ``os.replace``; on POSIX the folder is ``fsync``-ed too. On any error the temporary
    file is removed and the target is untouched (issue 3 §3: "a failure half-way leaves
    the original file as it was").

    Args:
        path: the file to write; its parent folder must exist.
        data: the complete new content (bytes).

    Raises:
        OSError: the write failed; ``path`` still holds its previous content.
    """
    target = Path(path)
    mode = _existing_mode(target)
    tmp = _write_temp(target.parent, target.name, data)
    try:
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_directory(target.parent)


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8", newline: str | None = None) -> None:
    """Encode ``text`` and write it with :func:`atomic_write_bytes`.

    Args:
        path: the file to write.
        text: the new content.
        encoding: a Python codec name (``"utf-8"``, ``"gbk"``, ``"utf-8-sig"``…).
        newline: when given (``"\\n"``, ``"\\r\\n"``, ``"\\r"``), every line ending in
            ``text`` is converted to it; ``None`` writes ``text`` as it is.

    Raises:
        UnicodeEncodeError: ``text`` cannot be encoded; nothing was written.
        OSError: the write failed; the target is unchanged.
    """
    if newline is not None:
        text = normalize_newlines(text, newline)
    atomic_write_bytes(path, text.encode(encoding))


def normalize_newlines(text: str, newline: str) -> str:
    """Return ``text`` with every ``\\r\\n``, ``\\r`` and ``\\n`` replaced by ``newline``."""
    unified = text.replace("\r\n", "\n").replace("\r", "\n")
    return unified if newline == "\n" else unified.replace("\n", newline)


def create_exclusive(path: Path | str, data: bytes) -> None:
    """Create ``path`` holding ``data``; never overwrite, even in a race.

    The content is written to a temporary file first and then linked to ``path``
    without replacing (``O_CREAT|O_EXCL`` semantics), so a crash never leaves a
    half-written new file under the target name.

    Args:
        path: the new file; its parent folder must exist.
        data: the content (bytes; may be empty).

    Raises:
        FileExistsError: ``path`` already exists (nothing was changed).
        OSError: the write failed; ``path`` does not exist afterwards.
    """
    target = Path(path)
    tmp = _write_temp(target.parent, target.name, data)
    try:
        _publish_no_replace(tmp, target)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_directory(target.parent)


def copy_no_replace(source: Path | str, target: Path | str, *, verify: bool = True) -> None:
    """Copy one regular file to ``target`` without ever overwriting.

    The bytes go to a temporary file in the target's folder (``fsync``-ed, with the
    source's permission bits and times like ``shutil.copy2``), are checked against the
    source's SHA-256 when ``verify`` is set, and are then linked to ``target`` with
    no-replace semantics.

    Args:
        source: an existing regular file.
        target: the new path; its parent folder must exist.
        verify: re-read the copy and compare SHA-256 with the source.

    Raises:
        FileExistsError: ``target`` exists (nothing was changed).
        OSError: reading, writing or verification failed; ``target`` does not exist.
    """
    src, dst = Path(source), Path(target)
    fd, tmp = _open_temp(dst.parent, dst.name)
    try:
        digest = hashlib.sha256()
        with open(src, "rb") as fin, os.fdopen(fd, "wb") as fout:
            while chunk := fin.read(_CHUNK_BYTES):
                digest.update(chunk)
                fout.write(chunk)
            fout.flush()
            os.fsync(fout.fileno())
        shutil.copystat(src, tmp)
        if verify and sha256_of(tmp) != digest.hexdigest():
            raise OSError(errno.EIO, "copy verification failed", str(dst))
        _publish_no_replace(tmp, dst)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_directory(dst.parent)


def rename_no_replace(source: Path | str, target: Path | str) -> None:
    """Rename ``source`` to ``target`` on the same filesystem; never overwrite.

    POSIX: ``os.link`` + ``os.unlink`` (the link fails with ``EEXIST`` when the target
    exists); where hard links are unsupported (folders, FAT) an existence check right
    before ``os.rename``. Windows: ``os.rename`` refuses existing targets by itself.

    Args:
        source: an existing file or folder.
        target: the new path (same filesystem).

    Raises:
        FileExistsError: ``target`` exists (nothing was changed).
        OSError: the rename failed, e.g. ``EXDEV`` across filesystems.
    """
    _publish_no_replace(Path(source), Path(target))
    _fsync_directory(Path(target).parent)
    if Path(source).parent != Path(target).parent:
        _fsync_directory(Path(source).parent)


def move_file_no_replace(source: Path | str, target: Path | str) -> None:
    """Move one regular file to ``target``; never overwrite, across filesystems too.

    Same filesystem: :func:`rename_no_replace`. Across filesystems (``EXDEV``): a
    verified :func:`copy_no_replace`, and only then the original is unlinked.

    Raises:
        FileExistsError: ``target`` exists (nothing was changed).
        OSError: the move failed; the source is still in place.
    """
    try:
        rename_no_replace(source, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        copy_no_replace(source, target, verify=True)
        os.unlink(source)
        _fsync_directory(Path(source).parent)


def rename_case_only(source: Path | str, target: Path | str) -> None:
    """Rename ``source`` to ``target`` whose name differs only in letter case (``a.txt`` → ``A.txt``).

    Works on case-insensitive filesystems (Windows, macOS) too: the entry is first
    renamed to a temporary name, then to the target without replacing; if that fails
    it is renamed back. A different file already called ``target`` (case-sensitive
    filesystems) is never overwritten.

    Args:
        source: an existing file or folder.
        target: same folder, a name equal to ``source``'s up to case.

    Raises:
        FileExistsError: a different file already has the target name.
        OSError: the rename failed; ``source`` is in place again.
    """
    src, dst = Path(source), Path(target)
    if os.path.lexists(dst) and not _same_entry(src, dst):
        raise FileExistsError(errno.EEXIST, "target exists", str(dst))
    tmp = src.parent / _temp_name(src.name)
    _publish_no_replace(src, tmp)
    try:
        _publish_no_replace(tmp, dst)
    except BaseException:
        os.rename(tmp, src)
        raise
    _fsync_directory(dst.parent)


def _same_entry(a: Path, b: Path) -> bool:
    sa, sb = os.lstat(a), os.lstat(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def sha256_of(path: Path | str) -> str:
    """Return the hex SHA-256 of the file at ``path`` (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def is_temp_name(name: str) -> bool:
    """Return whether ``name`` looks like one of this module's temporary files."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _publish_no_replace(source: Path, target: Path) -> None:
    if os.name == "nt":
        os.rename(source, target)  # Windows: FileExistsError when target exists
        return
    try:
        _hard_link(source, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_LINK_ERRNOS:
            raise
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "target exists", str(target)) from None
        os.rename(source, target)
        return
    os.unlink(source)


def _hard_link(source: Path, target: Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)  # link the entry itself, not what it points to
    except NotImplementedError:
        os.link(source, target)


def _temp_name(name: str) -> str:
    """``.<start of name>.<12 hex>.latmp``, at most 100 bytes of UTF-8 (a CJK name's 80 characters are 240)."""
    start = name[:80].encode("utf-8", "surrogatepass")[:80].decode("utf-8", "ignore")
    return f".{start}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def _open_temp(directory: Path, name: str) -> tuple[int, Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = directory / _temp_name(name)
        try:
            return os.open(tmp, flags, 0o666), tmp  # 0o666 & ~umask, like a normal new file
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(directory))


def _write_temp(directory: Path, name: str, data: bytes) -> Path:
    fd, tmp = _open_temp(directory, name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _remove_quietly(tmp)
        raise
    return tmp


def _existing_mode(path: Path) -> int | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def _remove_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # folders cannot be opened for fsync on Windows
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on folders; the data itself was synced
    finally:
        os.close(fd)
