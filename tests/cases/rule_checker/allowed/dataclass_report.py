from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Optional


class Kind(Enum):
    IMAGE = "image"
    OTHER = "other"


@dataclass
class Entry:
    path: Path
    size: int
    kind: Kind = Kind.OTHER
    tags: list[str] = field(default_factory=list)
    note: Optional[str] = None


def classify(path: Path) -> Entry:
    kind = Kind.IMAGE if path.suffix.lower() in (".png", ".jpg") else Kind.OTHER
    return Entry(path=path, size=path.stat().st_size, kind=kind)


entries = [classify(p) for p in Path("input").iterdir() if p.is_file()]
entries.sort(key=lambda e: (e.kind.value, -e.size))
lines = [f"{e.kind.value}\t{e.size}\t{e.path.name}" for e in entries]
Path("output/report.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
