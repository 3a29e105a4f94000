"""Write tools of the workspace agent (seed 001 §3 v1c/v1d, §8.3; issue 3 §3).

``create_file``, ``create_directory``, ``write_file``, ``copy_file``, ``move_file`` and
``rename_file`` — plus ``delete_to_trash`` (:mod:`localagent.tools.trash_tools`) and
``undo_last`` (:mod:`localagent.tools.undo_tools`), re-exported here. The controller asks
the user before calling any of them; each tool still sends every path through
``ctx.policy`` (the one gate), never overwrites, backs up before changing a file, writes
atomically, records the completed write in the operation journal, logs one line (seed
§14) and returns a :class:`WorkspaceToolResult` (errors are results).
"""

from __future__ import annotations

import codecs
import os

from localagent.errors import ToolFailed
from localagent.i18n import tr
from localagent.tools.trash_tools import delete_permanently, delete_to_trash
from localagent.tools.types import ToolContext, WorkspaceToolResult, WorkspaceToolRisk
from localagent.tools.undo_tools import undo_last
from localagent.tools.write_support import (
    MAX_WRITE_BYTES,
    check_parent_folder,
    exists_refusal,
    missing_refusal,
    record,
    relative,
    require,
    resolve,
    success,
    write_tool,
)
from localagent.workspace.atomic import (
    atomic_write_bytes,
    copy_no_replace,
    create_exclusive,
    move_file_no_replace,
    normalize_newlines,
    rename_case_only,
    rename_no_replace,
)
from localagent.workspace.backups import backup_file
from localagent.workspace.journal import new_entry
from localagent.workspace.policy import is_legal_file_name

__all__ = ["TOOL_RISKS", "copy_file", "create_directory", "create_file", "delete_permanently", "delete_to_trash",
           "move_file", "rename_file", "undo_last", "write_file"]

# Seed 001 §5 risk levels of the write tools (the controller asks for a yes on all of them).
TOOL_RISKS: dict[str, WorkspaceToolRisk] = {
    "create_file": WorkspaceToolRisk.MEDIUM,
    "create_directory": WorkspaceToolRisk.MEDIUM,
    "copy_file": WorkspaceToolRisk.MEDIUM,
    "write_file": WorkspaceToolRisk.HIGH,
    "move_file": WorkspaceToolRisk.HIGH,
    "rename_file": WorkspaceToolRisk.HIGH,
    "delete_to_trash": WorkspaceToolRisk.HIGH,
    "undo": WorkspaceToolRisk.HIGH,
    "delete_permanently": WorkspaceToolRisk.DANGEROUS,
}

_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@write_tool("create_file")
def create_file(ctx: ToolContext, path: str, content: str = "") -> WorkspaceToolResult:
    """Create a new text file (Medium; seed 001 §8.3 CreateFileTool).

    The parent folder must already exist; the target must not exist; the name must be
    legal, not sensitive, not a dangerous type (``.bat`` …) and not in a protected folder
    (all judged by ``ctx.policy.can_create_file``). Created exclusively: never overwrites.

    Args:
        ctx: the tool context. path: workspace-relative path of the new file.
        content: its text, written as UTF-8 (at most 10 MiB once encoded).

    Returns:
        Success with ``target_path``, or a refusal result.
    """
    target = resolve(ctx, path)
    require(ctx.policy.can_create_file(target))
    rel = relative(ctx, target)
    check_parent_folder(ctx, target)
    data = content.encode("utf-8")
    _check_size(len(data))
    try:
        create_exclusive(target, data)
    except FileExistsError:
        raise exists_refusal(rel) from None
    note = record(ctx, new_entry("create_file", target=rel, result=target))
    return success(tr(ctx.lang, f"已创建文件：{rel}", f"Created the file: {rel}") + note, rel)


@write_tool("create_directory")
def create_directory(ctx: ToolContext, path: str) -> WorkspaceToolResult:
    """Create one new folder (Medium; seed 001 §8.3 CreateDirectoryTool).

    Args:
        ctx: the tool context. path: workspace-relative path; the parent must exist,
            the folder must not.

    Returns:
        Success with ``target_path``, or a refusal result.
    """
    target = resolve(ctx, path)
    require(ctx.policy.can_create_directory(target))
    rel = relative(ctx, target)
    check_parent_folder(ctx, target)
    try:
        os.mkdir(target)
    except FileExistsError:
        raise exists_refusal(rel) from None
    note = record(ctx, new_entry("create_directory", target=rel, result=target))
    return success(tr(ctx.lang, f"已创建文件夹：{rel}", f"Created the folder: {rel}") + note, rel)


@write_tool("write_file")
def write_file(ctx: ToolContext, path: str, content: str) -> WorkspaceToolResult:
    """Replace the content of an existing text file (High; seed 001 §8.3 WriteFileTool).

    Binary (NUL bytes, no decoding), sensitive and dangerous-suffix files are refused.
    The file's encoding (BOM included) and newline style are kept when the new text
    can be encoded in it, else UTF-8 is used and the message says so. A backup goes to
    ``.localagent/backups`` first, then the file is replaced atomically: a failure
    leaves the original byte for byte.

    Args:
        ctx: the tool context. path: workspace-relative path of an existing file.
        content: the complete new text (at most 10 MiB once encoded).

    Returns:
        Success with ``target_path`` (message names the backup), or a refusal result.
    """
    target = resolve(ctx, path)
    require(ctx.policy.can_write_file(target))
    rel = relative(ctx, target)
    if not target.is_file():
        raise missing_refusal(rel) if not target.exists() else ToolFailed(
            f"只能修改已有的文件：{rel}", f"Only existing files can be modified: {rel}")
    old = _read_existing(ctx, target)
    data, note = _encode_like(old, content, ctx.lang)
    if data == old:
        return success(tr(ctx.lang, f"内容没有变化：{rel}", f"The content is unchanged: {rel}"), rel)
    backup = backup_file(ctx.policy, target)
    atomic_write_bytes(target, data)
    note += record(ctx, new_entry("write_file", target=rel, backup=backup.name, result=target))
    return success(tr(ctx.lang, f"已修改文件：{rel}（备份：{backup.name}）",
                      f"Modified the file: {rel} (backup: {backup.name})") + note, rel)


def _check_size(size: int) -> None:
    if size > MAX_WRITE_BYTES:
        raise ToolFailed(f"内容过大（超过 {MAX_WRITE_BYTES // (1024 * 1024)} MB）",
                         f"The content is too large (over {MAX_WRITE_BYTES // (1024 * 1024)} MB)")


def _read_existing(ctx: ToolContext, target) -> bytes:
    """Read the current bytes through the policy (post-open identity check), at most the size limit."""
    with ctx.policy.open_for_read(target) as handle:
        data = handle.read(MAX_WRITE_BYTES + 1)
    _check_size(len(data))
    return data


def _encode_like(old: bytes, content: str, lang: str) -> tuple[bytes, str]:
    """Encode ``content`` with ``old``'s encoding, BOM and newline style.

    Returns:
        ``(bytes, note)``; ``note`` is non-empty when UTF-8 had to replace the old encoding.

    Raises:
        ToolFailed: ``old`` is binary (NUL bytes, no encoding fits) or the result is too large.
    """
    from localagent.workspace.textio import decode_bytes

    try:
        text, encoding = decode_bytes(old)
    except ToolFailed:
        raise ToolFailed("二进制文件不能修改", "Binary files cannot be modified") from None
    bom = next((b for b in _BOMS if old.startswith(b)), b"")
    if bom and encoding != "utf-8-sig":
        text = text.removeprefix("\ufeff")  # utf-16/32 decoders keep the BOM as a character
    newline = _newline_style(text)
    new_text = normalize_newlines(content, newline) if newline else content
    try:
        data = new_text.encode(encoding)
    except UnicodeEncodeError:
        data = new_text.encode("utf-8")
        note = tr(lang, f"（新内容无法用 {encoding} 编码，已改存为 UTF-8）",
                  f" (the new text cannot be encoded as {encoding}; saved as UTF-8)")
        return data, note
    if bom and encoding != "utf-8-sig" and not data.startswith(bom):
        data = bom + data
    _check_size(len(data))
    return data, ""


def _newline_style(text: str) -> str | None:
    """Return the dominant line ending of ``text`` or ``None`` when it has none."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if not (crlf or lf or cr):
        return None
    return max((crlf, "\r\n"), (lf, "\n"), (cr, "\r"))[1]


@write_tool("copy_file")
def copy_file(ctx: ToolContext, source: str, target: str) -> WorkspaceToolResult:
    """Copy one file inside the workspace; never overwrites (Medium; seed 001 §8.3 CopyFileTool).

    A folder as source is refused. When ``target`` is an existing folder the file is
    copied into it under its own name. The copy is written to a temporary name in the
    target folder, verified, then linked to the target without replacing.

    Args:
        ctx: the tool context. source: workspace-relative path of an existing file.
        target: workspace-relative path of the new file, or of an existing folder.

    Returns:
        Success with ``target_path`` (the new file), or a refusal result.
    """
    src = resolve(ctx, source, for_write=False)
    require(ctx.policy.can_read_file(src))
    src_rel = relative(ctx, src)
    if src.is_dir():
        raise ToolFailed("只能复制单个文件，不能复制文件夹", "Only a single file can be copied, not a folder")
    if not src.is_file():
        raise missing_refusal(src_rel)
    dst = resolve(ctx, target)
    if dst.is_dir():
        dst = resolve(ctx, dst / src.name)
    require(ctx.policy.can_create_file(dst))
    dst_rel = relative(ctx, dst)
    check_parent_folder(ctx, dst)
    try:
        copy_no_replace(src, dst, verify=True)
    except FileExistsError:
        raise exists_refusal(dst_rel) from None
    note = record(ctx, new_entry("copy_file", source=src_rel, target=dst_rel, result=dst))
    return success(tr(ctx.lang, f"已复制：{src_rel} → {dst_rel}", f"Copied: {src_rel} → {dst_rel}") + note, dst_rel)


@write_tool("move_file")
def move_file(ctx: ToolContext, source: str, target: str) -> WorkspaceToolResult:
    """Move one file inside the workspace; never overwrites (High, strong confirmation; seed 001 §8.3).

    When ``target`` is an existing folder the file moves into it under its own name.
    Same filesystem: a no-replace rename; across filesystems: a verified copy, then the
    original is removed.

    Args:
        ctx: the tool context. source: workspace-relative path of an existing file.
        target: the new workspace-relative path, or an existing folder.

    Returns:
        Success with ``target_path`` (the new place), or a refusal result.
    """
    src = resolve(ctx, source)
    src_rel = relative(ctx, src)
    if src.is_dir():
        raise ToolFailed("只能移动单个文件，不能移动文件夹", "Only a single file can be moved, not a folder")
    if not src.is_file():
        raise missing_refusal(src_rel)
    dst = resolve(ctx, target)
    if dst.is_dir():
        dst = resolve(ctx, dst / src.name)
    dst_rel = relative(ctx, dst)
    if dst == src:
        raise ToolFailed("源和目标是同一个位置", "The source and the target are the same place")
    require(ctx.policy.can_move_file(src, dst))
    check_parent_folder(ctx, dst)
    try:
        move_file_no_replace(src, dst)
    except FileExistsError:
        raise exists_refusal(dst_rel) from None
    note = record(ctx, new_entry("move_file", source=src_rel, target=dst_rel, result=dst))
    return success(tr(ctx.lang, f"已移动：{src_rel} → {dst_rel}", f"Moved: {src_rel} → {dst_rel}") + note, dst_rel)


@write_tool("rename_file")
def rename_file(ctx: ToolContext, path: str, new_name: str) -> WorkspaceToolResult:
    """Rename a file (or folder) within its folder; never overwrites (High; seed 001 §8.3 RenameFileTool).

    ``new_name`` must be one legal name on every OS's rules (no ``/`` or ``\\``, no
    ``CON``, ``a:b``, ``*``, trailing dot …). A case-only rename (``a.txt`` → ``A.txt``)
    goes through a temporary name so it works on case-insensitive filesystems too.

    Args:
        ctx: the tool context. path: workspace-relative path of the existing item.
        new_name: the new name (a bare name, not a path).

    Returns:
        Success with ``target_path`` (the new relative path), or a refusal result.
    """
    if not isinstance(new_name, str) or "/" in new_name or "\\" in new_name:
        raise ToolFailed("新文件名不能包含路径分隔符（重命名只在同一文件夹内）",
                         "The new name must not contain a path separator (rename stays in the same folder)")
    require(is_legal_file_name(new_name))
    src = resolve(ctx, path)
    src_rel = relative(ctx, src)
    if not os.path.lexists(src):
        raise missing_refusal(src_rel)
    if src == ctx.policy.root:
        raise ToolFailed("不能重命名工作区根目录", "The workspace root cannot be renamed")
    dst = resolve(ctx, src.parent / new_name)
    if dst.parent != src.parent or dst.name == src.name:
        raise ToolFailed("新名称无效或与原名相同", "The new name is invalid or the same as the old one")
    require(ctx.policy.can_move_file(src, dst))
    dst_rel = relative(ctx, dst)
    _rename(src, dst, dst_rel)
    note = record(ctx, new_entry("rename_file", source=src_rel, target=dst_rel, result=dst))
    return success(tr(ctx.lang, f"已重命名：{src_rel} → {dst_rel}", f"Renamed: {src_rel} → {dst_rel}") + note,
                   dst_rel)


def _rename(src, dst, dst_rel: str) -> None:
    try:
        if src.name.casefold() == dst.name.casefold():
            rename_case_only(src, dst)
        else:
            rename_no_replace(src, dst)
    except FileExistsError:
        raise exists_refusal(dst_rel) from None
