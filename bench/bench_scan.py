"""Benchmark: scan_workspace vs ``rg --files`` on a generated tree of 100,000 files (issue 3 benchmarks).

Run: ``python bench/bench_scan.py [--files 100000] [--runs 5] [--tree DIR]``. The tree is
generated once under the temp folder and reused. Prints the median of each tool and
the ratio (goal: scan ≤ 1.5× ``rg --files``), wall and CPU time (this process plus its
children), runs interleaved. Warm page cache: one untimed run of each first. The scan reads
no file's size or time (they are read on first use), so the walk without ``stat`` is its floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from localagent.tools.read_tools import find_rg  # noqa: E402
from localagent.workspace.policy import AccessPolicy  # noqa: E402
from localagent.workspace.scanner import scan_workspace  # noqa: E402

RARE_WORD = "zebracorn_needle"


def make_tree(root: Path, total: int) -> Path:
    """Create ``total`` small source files under ``root`` (4 levels, 100 files a folder) unless already there."""
    marker = root / f".complete-{total}"
    if marker.exists():
        return root
    per_dir = 100
    for n in range(total):
        d = n // per_dir
        folder = root / f"pkg{d // 100:02}" / f"mod{(d // 10) % 10}" / f"part{d % 10}"
        if n % per_dir == 0:
            folder.mkdir(parents=True, exist_ok=True)
        word = RARE_WORD if n % 5000 == 7 else "common"
        (folder / f"file_{n:06}.cpp").write_text(
            f"// file {n}\n#include <vector>\nclass C{n} {{\n  int {word} = {n};\n}};\n", encoding="utf-8")
    marker.write_text("ok")
    return root


def bare_walk(root: Path, *, stat: bool = True) -> int:
    """Return the file count of a bare ``os.scandir`` walk (with one ``stat`` per file, or none)."""
    from collections import deque

    queue, count = deque([str(root)]), 0
    while queue:
        with os.scandir(queue.popleft()) as iterator:
            for entry in iterator:
                if entry.is_dir(follow_symlinks=False):
                    queue.append(entry.path)
                else:
                    if stat:
                        entry.stat(follow_symlinks=False)
                    count += 1
    return count


def _cpu_seconds() -> float:
    """Return user + system CPU seconds of this process and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def interleaved_medians(funcs: dict, runs: int) -> dict[str, tuple[float, float]]:
    """Time each callable ``runs`` times, alternating between them; return ``{name: (wall s, cpu s)}`` medians.

    CPU time (this process plus its children, e.g. rg) is also reported because wall
    time on a shared, loaded machine swings by 3x from run to run.
    """
    for func in funcs.values():
        func()  # warm-up: page cache, imports
    walls: dict[str, list[float]] = {name: [] for name in funcs}
    cpus: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(runs):
        for name, func in funcs.items():
            cpu0, wall0 = _cpu_seconds(), time.perf_counter()
            func()
            walls[name].append(time.perf_counter() - wall0)
            cpus[name].append(_cpu_seconds() - cpu0)
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in funcs}


def report(label: str, wall_cpu: tuple[float, float]) -> str:
    """Format one line: label, wall ms, CPU ms."""
    return f"{label:<52} wall {wall_cpu[0] * 1000:8.1f} ms   cpu {wall_cpu[1] * 1000:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, default=Path(tempfile.gettempdir()) / "localagent-bench-tree")
    args = parser.parse_args()
    root = make_tree(args.tree, args.files)
    rg = find_rg()
    if rg is None:
        sys.exit("rg not found")
    policy = AccessPolicy(root)
    found = scan_workspace(policy, max_files=args.files * 2, max_depth=64)
    listed = subprocess.run([rg, "--files", "--no-config", str(root)], capture_output=True, check=True)
    print(f"tree: {root}  files: scan={len(found.files)} rg={len(listed.stdout.splitlines())}")
    rg_cmd = [rg, "--files", "--no-config", str(root)]
    medians = interleaved_medians({
        "scan": lambda: scan_workspace(policy, max_files=args.files * 2, max_depth=64),
        "rg": lambda: subprocess.run(rg_cmd, capture_output=True, check=True),
        "rg_j1": lambda: subprocess.run(rg_cmd[:2] + ["-j1"] + rg_cmd[2:], capture_output=True, check=True),
        "rg_sorted": lambda: subprocess.run(rg_cmd[:2] + ["--sort", "modified"] + rg_cmd[2:], capture_output=True,
                                            check=True),
        "floor": lambda: bare_walk(root),
        "floor_nostat": lambda: bare_walk(root, stat=False),
    }, args.runs)
    print(report("scan_workspace", medians["scan"]))
    print(report("rg --files", medians["rg"]))
    print(report("rg --files -j1 (one thread)", medians["rg_j1"]))
    print(report("rg --files --sort modified (stats every file)", medians["rg_sorted"]))
    print(report("os.scandir walk + 1 stat/file, no objects", medians["floor"]))
    print(report("os.scandir walk, no stat, no objects", medians["floor_nostat"]))
    (scan_wall, scan_cpu), (rg_wall, rg_cpu) = medians["scan"], medians["rg"]
    print(f"ratio scan/rg: wall {scan_wall / rg_wall:.2f}x, cpu {scan_cpu / rg_cpu:.2f}x   (goal <= 1.5x)")


if __name__ == "__main__":
    main()
