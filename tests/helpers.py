"""Small helpers shared by tests (no fixtures here; see conftest and tests/fake_llm)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.ui.demo import png_bytes


def tree_digest(root: Path) -> dict[str, str]:
    """Return ``{relative path: sha256}`` of every file under ``root`` (symlinks as their target text)."""
    digest: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            digest[rel] = "link:" + str(path.readlink())
        elif path.is_file():
            digest[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def make_workspace(root: Path, images: int = 3) -> Path:
    """Create ``root/input`` with ``images`` PNG files in two folders and one text file; return root."""
    (root / "input" / "sub").mkdir(parents=True)
    for number in range(images):
        folder = root / "input" / ("sub" if number % 2 else "")
        (folder / f"img_{number}.png").write_bytes(png_bytes(4, 4, (number * 20 % 256, 10, 10)))
    (root / "input" / "notes.txt").write_text("not an image\n", encoding="utf-8")
    return root


def task_reply(code: str, plan: str = "复制 input 里的图片到 output，不改原文件。", risks: list[str] | None = None) -> str:
    """Return a model answer in the task prompt's shape: a JSON plan then one python block."""
    head = json.dumps({"plan": plan, "risks": risks or ["文件无法读取时会失败"]}, ensure_ascii=False)
    return f"{head}\n\n```python\n{code}\n```\n"


COPY_IMAGES_CODE = '''\
import json
import shutil
from pathlib import Path

ok = 0
bad = 0
for source in sorted(Path("input").rglob("*.png")):
    target = Path("output") / source.relative_to("input")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copy2(source, target)
        ok += 1
    except OSError:
        bad += 1
print("LOCALAGENT_RESULT " + json.dumps({"succeeded": ok, "failed": bad}))
'''


#: Skip marker for tests that need bubblewrap (CI installs it; the reason is printed when skipped).
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
#: Both runtime layers, so each is proven on its own.
ISOLATIONS = ["guard-only", pytest.param("bwrap", marks=needs_bwrap)]


def sandbox_layout(tmp_path: Path) -> SimpleNamespace:
    """Return a workspace layout (root, input, output, logs) under ``tmp_path/ws`` with the three folders made."""
    root = (tmp_path / "ws").resolve()
    spaces = SimpleNamespace(root=root, input=root / "input", output=root / "output", logs=root / "logs")
    for folder in (spaces.input, spaces.output, spaces.logs):
        folder.mkdir(parents=True)
    return spaces


#: A model-written task that copies one image, then sleeps ~60 s (for cancel tests).
SLOW_CODE = '''\
import shutil
import time
from pathlib import Path

for source in sorted(Path("input").rglob("*.png")):
    shutil.copy2(source, Path("output") / source.name)
    print("copied", source.name, flush=True)
    break
for _ in range(600):
    time.sleep(0.1)
'''
