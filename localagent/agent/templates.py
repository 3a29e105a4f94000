"""Built-in safe task templates used when no model is configured (seed 000 step 2).

Seed 000: "MVP 先内置安全示例代码：遍历 workspace/input，复制文件到 workspace/output，
不依赖第三方库，不修改原文件". A template is code we ship; it still goes through the
rule checker and the sandbox, but not the LLM reviewer (issue 2 part 7).

:func:`match_template` maps a sentence to a template (``copy_all`` or
``copy_kind`` with a kind: images, documents, audio, video); :func:`render_template`
returns the Python source and :func:`template_plan` the plan text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from localagent.i18n import tr

#: File kinds a template can copy, with their suffixes (lower case, with the dot).
KIND_SUFFIXES: dict[str, tuple[str, ...]] = {
    "images": (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".tif", ".tiff", ".heic", ".svg", ".ico"),
    "documents": (".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".txt", ".md", ".csv", ".odt",
                  ".ods", ".odp", ".rtf", ".wps", ".et", ".dps"),
    "audio": (".mp3", ".wav", ".flac", ".aac", ".m4a", ".ogg", ".wma", ".opus"),
    "video": (".mp4", ".mov", ".avi", ".mkv", ".wmv", ".flv", ".webm", ".m4v"),
}

_KIND_WORDS: dict[str, tuple[str, ...]] = {
    "images": ("图片", "照片", "相片", "图像", "截图", "image", "images", "photo", "photos", "picture", "pictures", "jpg", "png"),
    "documents": ("文档", "文件资料", "word", "excel", "pdf", "document", "documents", "docs"),
    "audio": ("音频", "音乐", "歌曲", "录音", "audio", "music", "songs", "mp3"),
    "video": ("视频", "影片", "录像", "video", "videos", "movie", "movies", "mp4"),
}
_COPY_WORDS = ("复制", "拷贝", "备份", "copy", "back up", "backup", "duplicate")
_OTHER_ACTION = re.compile(r"(删除|移动|重命名|改名|转换|压缩|解压|合并|分类|整理|去重|delete|move|rename|convert|"
                           r"compress|zip|merge|sort|dedup|resize|缩放|裁剪|crop|打开|open|读取|read|搜索|search)")


@dataclass(frozen=True)
class TemplateChoice:
    """A matched template: ``name`` is ``copy_all`` or ``copy_kind``; ``kind`` names the file kind."""

    name: str
    kind: str | None = None


def match_template(sentence: str) -> TemplateChoice | None:
    """Return the built-in template that does exactly what ``sentence`` asks, or ``None``.

    Only plain copy requests match: a sentence that also asks to move, delete,
    convert, rename… is not a copy and gets ``None`` (better not to run than to
    run the wrong thing).
    """
    text = sentence.casefold()
    if not any(word in text for word in _COPY_WORDS) or _OTHER_ACTION.search(text):
        return None
    kinds = [kind for kind, words in _KIND_WORDS.items() if any(w in text for w in words)]
    if len(kinds) == 1:
        return TemplateChoice("copy_kind", kinds[0])
    if not kinds:
        return TemplateChoice("copy_all")
    return None


def template_plan(choice: TemplateChoice, lang: str) -> tuple[str, list[str]]:
    """Return ``(plan, risks)`` for a template, in the user's language (seed 000 step 1)."""
    what_zh = {"images": "图片", "documents": "文档", "audio": "音频", "video": "视频"}.get(choice.kind or "", "所有文件")
    what_en = {"images": "images", "documents": "documents", "audio": "audio files",
               "video": "videos"}.get(choice.kind or "", "all files")
    plan = tr(
        lang,
        f"1. 遍历 input 文件夹里的{what_zh}（包括子文件夹）。\n"
        f"2. 把每个文件复制一份到 output 文件夹，保持原来的子文件夹结构。\n"
        "3. 不会修改、移动或删除 input 里的原文件。\n"
        "4. output 里已有同名文件时不会覆盖，新文件名后加 (1)、(2)…\n"
        "5. 结束时报告成功和失败的文件数。",
        f"1. Go through the {what_en} in the input folder (sub-folders included).\n"
        "2. Copy each one to the output folder, keeping the sub-folder layout.\n"
        "3. The originals in input are never changed, moved or deleted.\n"
        "4. A name already in output is never overwritten: the copy gets (1), (2)…\n"
        "5. At the end, report how many files succeeded and failed.",
    )
    risks = [
        tr(lang, "无法读取的文件（权限不足、被占用）会被跳过并计为失败。",
           "Unreadable files (no permission, locked) are skipped and counted as failed."),
        tr(lang, "磁盘空间不足时复制会失败。", "Copying fails when the disk is full."),
        tr(lang, "指向工作区外的快捷方式/符号链接不会被复制。", "Symlinks pointing outside the workspace are not copied."),
    ]
    return plan, risks


def render_template(choice: TemplateChoice) -> str:
    """Return the Python source of the template (standard library only)."""
    suffixes = "None" if choice.kind is None else repr(tuple(KIND_SUFFIXES[choice.kind]))
    return _COPY_TEMPLATE.replace("__SUFFIXES__", suffixes)


_COPY_TEMPLATE = '''\
"""LocalAgent built-in template: copy files from input/ to output/ (originals untouched)."""
import json
import os
import shutil
from pathlib import Path

SUFFIXES = __SUFFIXES__
SOURCE = Path("input")
TARGET = Path("output")


def free_name(path):
    """Return path, or path with " (n)" added, so that nothing in output/ is overwritten."""
    candidate = path
    number = 1
    stem = path.stem[:200]  # room for " (n)" within the 255-byte name limit
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{stem} ({number}){path.suffix}")
        number += 1
    return candidate


def wanted(name):
    return SUFFIXES is None or os.path.splitext(name)[1].lower() in SUFFIXES


def main():
    succeeded = 0
    failed = 0
    for folder, subfolders, files in os.walk(SOURCE):
        subfolders.sort()
        for name in sorted(files):
            source = Path(folder) / name
            if not wanted(name):
                continue
            if source.is_symlink():
                print(f"skip symlink: {str(source)!r}")
                continue
            try:
                target = free_name(TARGET / source.relative_to(SOURCE))
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                succeeded += 1
                print(f"copied: {str(source)!r} -> {str(target)!r}")
            except OSError as error:
                failed += 1
                print(f"failed: {str(source)!r}: {error.strerror or error}")
    print("LOCALAGENT_RESULT " + json.dumps({"succeeded": succeeded, "failed": failed}))


if __name__ == "__main__":
    main()
'''
