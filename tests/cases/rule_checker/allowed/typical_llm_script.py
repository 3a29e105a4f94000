#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""
任务：把 input 里的照片按拍摄月份复制到 output/<YYYY-MM>/ 下，不修改原文件。
Task: copy photos into output/<YYYY-MM>/; never touches originals (no os.remove, no shutil.move).
"""
import logging
import os
import shutil
import sys
from datetime import datetime
from pathlib import Path

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
INPUT_DIR = os.path.join(BASE_DIR, "input")
OUTPUT_DIR = os.path.join(BASE_DIR, "output")
EXTENSIONS = (".jpg", ".jpeg", ".png", ".heic")

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
logger = logging.getLogger(__name__)


def safe_name(name: str) -> str:
    """Refuse odd names such as '../x' or '/abs' or '~$lock' files."""
    if ".." in name or name.startswith(("/", "\\")) or name[:1] == "~":
        raise ValueError(f"unsafe name: {name}")
    return name


def unique_target(folder: Path, name: str) -> Path:
    target = folder / name
    counter = 1
    while target.exists():
        target = folder / f"{Path(name).stem}_{counter}{Path(name).suffix}"
        counter += 1
    return target


def main() -> int:
    if not os.path.isdir(INPUT_DIR):
        print(f"Error: input folder not found: {INPUT_DIR}")
        return 1
    os.makedirs(OUTPUT_DIR, exist_ok=True)
    success, failed = 0, 0
    files = sorted(Path(INPUT_DIR).rglob("*"), key=lambda p: p.stat().st_mtime)
    for path in files:
        if not path.is_file() or path.suffix.lower() not in EXTENSIONS:
            continue
        try:
            month = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m")
            folder = Path(OUTPUT_DIR) / month
            folder.mkdir(parents=True, exist_ok=True)
            target = unique_target(folder, safe_name(path.name))
            shutil.copy2(str(path), str(target))
            success += 1
            logger.info("Copied %s -> %s", path.name, target.relative_to(BASE_DIR))
        except (OSError, ValueError) as e:
            failed += 1
            logger.error(f"Failed to copy {path}: {e}")
    print("=" * 40)
    print(f"完成：成功 {success} 个，失败 {failed} 个")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
