"""The demo workspace of the README's first command (issue 2 part 1).

:func:`prepare_demo_workspace` makes ``./demo_workspace`` (or the given folder)
with ``input/`` holding a few small sample images it creates (real PNG files,
standard library only) and one text file, so that "把这个文件夹里的图片复制一份"
has something to copy and something to leave alone. Existing files are never
overwritten.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from localagent.i18n import tr

DEMO_DIR = "demo_workspace"
_COLOURS = {"red": (220, 40, 40), "green": (40, 180, 70), "blue": (40, 90, 220)}


def png_bytes(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """Return a valid single-colour PNG of ``width`` × ``height`` pixels."""
    row = b"\x00" + bytes(rgb) * width
    raw = row * height

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def prepare_demo_workspace(folder: str | None, lang: str) -> Path:
    """Create the demo workspace and its sample files; return its path.

    Args:
        folder: where to create it; defaults to ``./demo_workspace``.
        lang: language of the sample note.

    Returns:
        The workspace folder (absolute).
    """
    root = Path(folder or DEMO_DIR).absolute()
    samples = root / "input"
    (samples / "相册 album").mkdir(parents=True, exist_ok=True)
    files = {samples / f"{name}.png": png_bytes(32, 24, rgb) for name, rgb in _COLOURS.items()}
    files[samples / "相册 album" / "照片 1.png"] = png_bytes(16, 16, (250, 200, 0))
    files[samples / "notes.txt"] = tr(lang, "这是一份文本，不是图片：复制图片时它会留在原处。\n",
                                      "A text file, not an image: copying images leaves it alone.\n").encode("utf-8")
    for path, data in files.items():
        if not path.exists():
            path.write_bytes(data)
    return root
