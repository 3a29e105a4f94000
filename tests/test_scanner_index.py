"""Scan and index (seed 001 §7, §15 扫描 / 搜索文件; issue 3 §2)."""

from __future__ import annotations

import os
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from localagent.tools.types import WorkspaceFileInfo
from localagent.workspace.index import WorkspaceIndex
from localagent.workspace.policy import AccessPolicy
from localagent.workspace.scanner import scan_workspace


def _write(root: Path, rel: str, text: str = "x\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "my project"
    for rel in ("main.cpp", "README.md", "CMakeLists.txt", "src/app.cpp", "src/app.h", "docs/说明.md",
                "docs/user guide.txt", "build/out.cpp", "Build2/keep.cpp", "BUILD/upper.cpp",
                "cmake-build-debug/gen.cpp", "cmake-build-release/gen.cpp", ".git/config", ".vs/x.json",
                ".idea/ws.xml", "node_modules/pkg/index.js", "dist/app.js", "release/a.txt",
                "release_packages/p.txt", "Logs/run.txt", ".hidden/inner.txt", ".clang-format"):
        _write(root, rel)
    return root


def _rels(result) -> set[str]:
    return {f.relative_path for f in result.files}


def test_normal_project_lists_sources_with_relative_paths(project: Path) -> None:
    result = scan_workspace(AccessPolicy(project))
    rels = _rels(result)
    assert {"main.cpp", "README.md", "src/app.cpp", "src/app.h", "docs/说明.md", "docs/user guide.txt",
            "Build2/keep.cpp"} <= rels
    assert not result.truncated and not result.cancelled
    app = next(f for f in result.files if f.relative_path == "src/app.cpp")
    assert Path(app.absolute_path) == project.resolve() / "src" / "app.cpp"
    assert app.file_name == "app.cpp" and app.suffix == ".cpp" and app.size_bytes == 2
    assert app.is_text_file and not app.is_directory and isinstance(app.last_modified, datetime)


def test_build_git_and_skip_list_dirs_not_entered_any_case(project: Path) -> None:
    result = scan_workspace(AccessPolicy(project))
    rels = _rels(result)
    for prefix in ("build/", "BUILD/", "cmake-build-debug/", "cmake-build-release/", ".git/", ".vs/", ".idea/",
                   "node_modules/", "dist/", "release/", "release_packages/", "Logs/", ".hidden/"):
        assert not any(rel.startswith(prefix) for rel in rels), prefix
    assert result.skipped_dirs >= 13
    hidden = next(f for f in result.files if f.relative_path == ".clang-format")
    assert hidden.is_hidden


def test_many_files_capped_at_5000_and_truncated(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for d in range(6):
        folder = root / f"d{d}"
        folder.mkdir(parents=True)
        for i in range(1000):
            (folder / f"f{i}.txt").write_bytes(b"")
    result = scan_workspace(AccessPolicy(root))
    assert len(result.files) == 5000 and result.truncated
    small = scan_workspace(AccessPolicy(root), max_files=10)
    assert len(small.files) == 10 and small.truncated
    everything = scan_workspace(AccessPolicy(root), max_files=6000)
    assert len(everything.files) == 6000 and not everything.truncated


def test_chinese_and_space_names(tmp_path: Path) -> None:
    root = tmp_path / "中文 工作区"
    _write(root, "源代码/主 程序.cpp")
    _write(root, "文档 目录/说明书.md")
    rels = _rels(scan_workspace(AccessPolicy(root)))
    assert rels == {"源代码/主 程序.cpp", "文档 目录/说明书.md"}


def test_deep_dirs_stop_at_depth_8(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    folder = root
    for level in range(1, 13):  # file_k sits at depth k (a child of the root is depth 1)
        (folder / f"file_{level}.txt").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"file_{level}.txt").write_text("x")
        folder = folder / f"d{level}"
    names = {f.file_name for f in scan_workspace(AccessPolicy(root)).files}
    assert names == {f"file_{k}.txt" for k in range(1, 9)}
    names3 = {f.file_name for f in scan_workspace(AccessPolicy(root), max_depth=3).files}
    assert names3 == {"file_1.txt", "file_2.txt", "file_3.txt"}


def test_gitignore_root_and_nested_with_negation(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _write(root, ".gitignore", "*.log\ngenerated/\n/only_root.txt\n")
    _write(root, "a.log")
    _write(root, "only_root.txt")
    _write(root, "sub/only_root.txt")
    _write(root, "generated/g.cpp")
    _write(root, "sub/generated/g.cpp")
    _write(root, "sub/.gitignore", "!keep.log\n*.tmp\n")
    _write(root, "sub/keep.log")
    _write(root, "sub/drop.log")
    _write(root, "sub/x.tmp")
    _write(root, "x.tmp")
    rels = _rels(scan_workspace(AccessPolicy(root)))
    assert rels == {".gitignore", "sub/.gitignore", "sub/only_root.txt", "sub/keep.log", "x.tmp"}


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_symlinks_out_of_workspace_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _write(outside, "secret_plan.txt")
    _write(outside, "nested/deep.cpp")
    root = tmp_path / "ws"
    _write(root, "real/inside.cpp")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "link_in").symlink_to(root / "real", target_is_directory=True)
    (root / "file_out.txt").symlink_to(outside / "secret_plan.txt")
    (root / "file_in.cpp").symlink_to(root / "real" / "inside.cpp")
    result = scan_workspace(AccessPolicy(root))
    assert _rels(result) == {"real/inside.cpp", "file_in.cpp"}
    assert result.skipped_dirs >= 2


def test_cancel_during_scan(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for d in range(20):
        for i in range(50):
            _write(root, f"d{d:02}/f{i}.txt")
    cancel = threading.Event()
    seen: list[int] = []

    def progress(count: int) -> None:
        seen.append(count)
        cancel.set()

    result = scan_workspace(AccessPolicy(root), progress=progress, cancel_event=cancel, progress_every=100)
    assert result.cancelled and not result.truncated
    assert 100 <= len(result.files) < 1000
    assert seen[0] == 100


def test_progress_reported_every_n_files(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for i in range(250):
        _write(root, f"f{i:03}.txt")
    seen: list[int] = []
    result = scan_workspace(AccessPolicy(root), progress=seen.append, progress_every=100)
    assert seen == [100, 200, 250] and len(result.files) == 250


# --- index ----------------------------------------------------------------------------------------

_NOW = datetime(2024, 5, 1, 12, 0, 0)


def _info(rel: str, age_days: float = 0.0) -> WorkspaceFileInfo:
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return WorkspaceFileInfo(relative_path=rel, absolute_path="/ws/" + rel, file_name=name,
                             suffix=name[dot:].lower() if dot > 0 else "",
                             last_modified=_NOW - timedelta(days=age_days))


@pytest.fixture
def index() -> WorkspaceIndex:
    return WorkspaceIndex([
        _info("src/main_window.cpp", 1), _info("main.cpp", 5), _info("tools/main", 9), _info("src/domain.h", 0),
        _info("README.md", 3), _info("docs/readme_old.txt", 0), _info("docs/说明文档.md", 2),
        _info("src/App.CPP", 7), _info(".cpp", 30), _info("lib/my_main_helper.py", 0),
        _info("src/mission_auto_info.txt", 0),
    ])


def test_find_by_name_relevance_then_recent(index: WorkspaceIndex) -> None:
    found = [f.relative_path for f in index.find_by_name("main")]
    # exact name, stem exact, prefix, substring (newer first), fuzzy subsequence last
    assert found[:5] == ["tools/main", "main.cpp", "src/main_window.cpp", "lib/my_main_helper.py", "src/domain.h"]
    assert found[-1] == "src/mission_auto_info.txt"


def test_find_by_name_case_folded_readme_and_chinese(index: WorkspaceIndex) -> None:
    assert [f.relative_path for f in index.find_by_name("README")] == ["README.md", "docs/readme_old.txt"]
    assert [f.relative_path for f in index.find_by_name("说明")] == ["docs/说明文档.md"]
    assert index.find_by_name("does-not-exist") == []
    assert index.find_by_name("   ") == []


def test_suffix_keyword_means_suffix_search(index: WorkspaceIndex) -> None:
    assert [f.relative_path for f in index.find_by_name(".cpp")] == [".cpp", "src/main_window.cpp", "main.cpp",
                                                                     "src/App.CPP"]
    assert [f.relative_path for f in index.find_by_name("*.cpp")] == ["src/main_window.cpp", "main.cpp",
                                                                      "src/App.CPP"]
    assert [f.relative_path for f in index.find_by_name("*main*")] == ["lib/my_main_helper.py", "src/domain.h",
                                                                       "src/main_window.cpp", "main.cpp",
                                                                       "tools/main"]


def test_find_by_name_at_most_30_and_relative_paths(tmp_path: Path) -> None:
    idx = WorkspaceIndex([_info(f"pkg/main_{i}.cpp", i) for i in range(40)])
    found = idx.find_by_name("main")
    assert len(found) == 30 and found[0].relative_path == "pkg/main_0.cpp"
    assert len(idx.find_by_name("main", max_results=5)) == 5


def test_find_by_suffix_recent_files_and_clear(index: WorkspaceIndex) -> None:
    assert [f.relative_path for f in index.find_by_suffix(["h", "*.MD"])] == ["src/domain.h", "docs/说明文档.md",
                                                                              "README.md"]
    recent = [f.relative_path for f in index.recent_files(3)]
    assert recent == ["docs/readme_old.txt", "lib/my_main_helper.py", "src/domain.h"]
    assert len(index.all_files()) == 11
    index.clear()
    assert index.all_files() == () and index.find_by_name("main") == []


def test_index_from_real_scan(project: Path) -> None:
    idx = WorkspaceIndex(scan_workspace(AccessPolicy(project)).files)
    assert [f.relative_path for f in idx.find_by_name("main")] == ["main.cpp"]
    assert {f.relative_path for f in idx.find_by_name(".cpp")} == {"main.cpp", "src/app.cpp", "Build2/keep.cpp"}
    assert [f.relative_path for f in idx.find_by_name("说明")] == ["docs/说明.md"]
