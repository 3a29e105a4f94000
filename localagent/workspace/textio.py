"""Detect and decode text files for the read tools (seed 001 §8.1 ReadFileTool).

A file is read through the access policy's ``open_for_read`` (the one gate), at
most ``max_bytes`` bytes, then: a byte-order mark decides first (UTF-8-SIG,
UTF-16 LE/BE, UTF-32); otherwise NUL bytes in the first 8 KB mean binary; then
strict UTF-8; then ``charset-normalizer``'s best guess (GBK/GB18030, Big5,
Shift-JIS…). No guess means binary. A cut at ``max_bytes`` never splits a
character: the incomplete tail is dropped by an incremental decoder.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from localagent.errors import ToolFailed

if TYPE_CHECKING:
    from pathlib import Path

    from localagent.workspace.policy import AccessPolicy

DEFAULT_MAX_BYTES = 128 * 1024
BINARY_SNIFF_BYTES = 8 * 1024

_CHINESE_CODECS = frozenset({"gb18030", "gbk", "gb2312", "big5", "big5hkscs", "hz"})

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE BOM.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True, kw_only=True)
class TextRead:
    """The decoded start of a text file.

    Attributes:
        text: decoded text (BOM removed), at most ``max_bytes`` bytes of the file.
        encoding: codec name used (``"utf-8"``, ``"utf-8-sig"``, ``"utf-16-le"``, ``"gb18030"``…).
        truncated: the file is longer than what was decoded.
        size_bytes: size of the whole file in bytes.
    """

    text: str
    encoding: str
    truncated: bool
    size_bytes: int


def binary_error() -> ToolFailed:
    """Return the error for a binary file (seed 001 §8.1: 不读二进制文件)."""
    return ToolFailed("二进制文件不能读取", "Binary files cannot be read")


def read_text(policy: AccessPolicy, path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> TextRead:
    """Read and decode the start of a text file through the access policy.

    Args:
        policy: the workspace :class:`AccessPolicy`; the file is opened with its
            ``open_for_read`` (resolution, containment and post-open identity check).
        path: workspace-relative or absolute path.
        max_bytes: read at most this many bytes (default 128 KB, seed 001 §8.1).

    Returns:
        :class:`TextRead` with the text, the encoding used, whether it was cut,
        and the file size in bytes.

    Raises:
        PathDenied: the policy refused the path.
        ToolFailed: the file is binary (NUL bytes, or no encoding fits) or cannot be read.
    """
    try:
        with policy.open_for_read(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ToolFailed(f"无法读取文件：{exc.strerror or exc}", f"Cannot read the file: {exc.strerror or exc}") from exc
    truncated = len(data) > max_bytes
    data = data[:max_bytes]
    text, encoding = decode_bytes(data, truncated=truncated)
    return TextRead(text=text, encoding=encoding, truncated=truncated, size_bytes=max(size, len(data)))


def decode_bytes(data: bytes, *, truncated: bool = False) -> tuple[str, str]:
    """Decode file bytes: BOM, then binary check, then strict UTF-8, then a detected charset.

    Args:
        data: the bytes read from the start of a file.
        truncated: the bytes stop before the end of the file, so a trailing
            incomplete character is dropped instead of being an error.

    Returns:
        ``(text, encoding)``.

    Raises:
        ToolFailed: the bytes look binary.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            codec = "utf-8" if encoding == "utf-8-sig" else encoding
            try:
                return _decode(data[len(bom):], codec, truncated=truncated), encoding
            except UnicodeDecodeError as exc:
                raise binary_error() from exc
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise binary_error()
    try:
        return _decode(data, "utf-8", truncated=truncated), "utf-8"
    except UnicodeDecodeError:
        pass
    encoding = _guess_encoding(data, truncated=truncated)
    if encoding is None:
        raise binary_error()
    try:
        return _decode(data, encoding, truncated=truncated), encoding
    except (UnicodeDecodeError, LookupError) as exc:
        raise binary_error() from exc


def _decode(data: bytes, encoding: str, *, truncated: bool) -> str:
    """Decode strictly; when ``truncated`` an incomplete last character is dropped, not an error."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    return decoder.decode(data, final=not truncated)


def _guess_encoding(data: bytes, *, truncated: bool) -> str | None:
    """Return charset-normalizer's best encoding, or ``None`` when nothing fits (binary).

    A cut sample is also tried without its last 1–3 bytes (a cut character
    spoils the guess); the least chaotic, most coherent guess wins. On a tie,
    GB18030 wins over Korean and Japanese guesses: short GBK text is equally
    valid CP949, and Chinese users are this product's audience.
    """
    from charset_normalizer import from_bytes  # lazy: only non-UTF-8 files need it

    trims = range(4) if truncated else range(1)
    ranked = [(match.chaos, -match.coherence, order, match.encoding)
              for trim in trims if len(data) > trim
              for order, match in enumerate(from_bytes(data[:len(data) - trim]))]
    if not ranked:
        return None
    ranked.sort()
    best_chaos, _, _, best = ranked[0]
    if best not in _CHINESE_CODECS and any(
            encoding == "gb18030" and chaos <= best_chaos + 0.01 for chaos, _, _, encoding in ranked):
        return "gb18030"
    return best
