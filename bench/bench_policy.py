"""Policy decisions per second on a mixed batch of 100,000 paths (issue 3 "Benchmarks").

Run: ``python bench/bench_policy.py [--count N]``. Builds a temp tree (files, folders,
symlinks in and out), makes a batch mixing inside paths, outside paths, ``..``
escapes, sensitive names, dangerous suffixes and Windows forms, then times
``can_read_file`` over the batch (and ``can_create_file`` on a tenth of it). As a
baseline in the same run it times bare ``os.path.realpath`` + ``Path.relative_to`` on
the same batch and prints the ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from localagent.workspace.policy import AccessPolicy  # noqa: E402

KINDS = {
    "inside": ["src/mod{i}/file{j}.py", "docs/guide{j}.md", "src\\mod{i}\\file{j}.py", "./src/mod{i}/../mod{i}/file{j}.py",
               "中文 目录/说明{j}.txt"],
    "outside": ["../outside/secret.txt", "{ABS_OUT}", "/etc/passwd", "link_out/x{j}.txt", "../ws-evil/x.txt"],
    "dotdot": ["src/../../x{j}", "src\\..\\..\\..\\etc\\passwd", "../ws/src/mod{i}/file{j}.py"],
    "sensitive": [".env", "config/.env.local", "keys/server{j}.pem", "id_rsa", "my_secret{j}.txt"],
    "dangerous": ["tools/run{j}.exe", "a{j}.BAT", "x{j}.exe.", "y{j}.ps1::$DATA", "setup{j}.lnk"],
    "windows": ["C:\\Windows\\win.ini", "C:foo{j}", "\\\\server\\share\\x", "\\\\?\\C:\\x", "CON", "nul{j}.txt",
                "a{j}.txt:stream", "GIT~1\\config"],
}


def build_tree(base: Path) -> Path:
    """Create ``base/ws`` with 20 modules × 25 files, docs, secrets, tools and links; return the root."""
    ws = base / "ws"
    for i in range(20):
        (ws / "src" / f"mod{i}").mkdir(parents=True)
        for j in range(25):
            (ws / "src" / f"mod{i}" / f"file{j}.py").write_text("x = 1\n")
    for folder in ("docs", "config", "keys", "tools", "中文 目录"):
        (ws / folder).mkdir()
    for j in range(25):
        (ws / "docs" / f"guide{j}.md").write_text("# g\n")
        (ws / "中文 目录" / f"说明{j}.txt").write_text("说明\n")
    (ws / ".env").write_text("K=1\n")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("s\n")
    (base / "ws-evil").mkdir()
    os.symlink(base / "outside", ws / "link_out")
    os.symlink(ws / "src", ws / "link_in")
    return ws


def make_batch(root: Path, count: int, seed: int = 7) -> list[str]:
    """Return ``count`` path strings, kinds mixed evenly, fixed seed."""
    rng = random.Random(seed)
    templates = [t for group in KINDS.values() for t in group]
    abs_out = str(root.parent / "outside" / "secret.txt")
    return [rng.choice(templates).format(i=rng.randrange(20), j=rng.randrange(25), ABS_OUT=abs_out)
            for _ in range(count)]


def time_policy(policy: AccessPolicy, batch: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    allowed = sum(1 for path in batch if policy.can_read_file(path))
    allowed += sum(1 for path in batch[::10] if policy.can_create_file(path + ".new"))
    return time.perf_counter() - start, allowed


def time_baseline(root: Path, batch: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    inside = 0
    for path in batch:
        try:
            Path(os.path.realpath(os.path.join(root, path))).relative_to(root)
            inside += 1
        except ValueError:
            pass
    for path in batch[::10]:
        try:
            Path(os.path.realpath(os.path.join(root, path + ".new"))).relative_to(root)
        except ValueError:
            pass
    return time.perf_counter() - start, inside


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000, help="paths in the batch (default 100000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-policy-") as tmp:
        root = build_tree(Path(tmp))
        policy = AccessPolicy(root)
        batch = make_batch(policy.root, args.count)
        decisions = len(batch) + len(batch[::10])
        policy_s, allowed = time_policy(policy, batch)
        base_s, inside = time_baseline(policy.root, batch)
    print(f"paths: {len(batch):,}  decisions: {decisions:,} (can_read_file on all, can_create_file on 1/10)")
    print(f"policy:   {decisions / policy_s:12,.0f} decisions/s  ({policy_s:.2f} s, {allowed:,} allowed)")
    print(f"baseline: {decisions / base_s:12,.0f} checks/s     ({base_s:.2f} s, realpath + relative_to; "
          f"{inside:,} 'inside' — it has no other rules)")
    print(f"ratio policy/baseline time: {policy_s / base_s:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
