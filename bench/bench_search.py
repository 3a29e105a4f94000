"""Benchmark: search_text vs bare ``rg --json --fixed-strings PATTERN`` on the 100,000-file tree.

Run: ``python bench/bench_search.py [--files 100000] [--runs 5] [--tree DIR]``. Uses (and if
needed generates) the same tree as ``bench_scan.py``. Two patterns: a rare one (20 hits, so
the whole tree is searched: the fair comparison; goal ≤ 1.10×) and a common one (every
file: search_text stops at 50 matches, bare rg prints them all).

Fair baseline: bare rg searches the same set of files as search_text, so it gets the same
ignore flags (``--no-config --no-require-git --no-ignore-parent --no-ignore-global
--max-depth 8``) and the same working directory (the root, path ``.``). What it does not get
is search_text's own work: the exclusion globs, the policy check per hit, the size check per
matching file and the JSON parsing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scan import RARE_WORD, interleaved_medians, make_tree, report  # noqa: E402

from localagent.tools.read_tools import find_rg, search_text  # noqa: E402
from localagent.tools.types import ToolContext  # noqa: E402
from localagent.workspace.policy import AccessPolicy  # noqa: E402


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
    ctx = ToolContext(policy=AccessPolicy(root))
    same_files = ["--no-config", "--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--max-depth", "8"]
    for label, pattern in (("rare", RARE_WORD), ("common", "#include <vector>")):
        result = search_text(ctx, pattern)
        bare_argv = [rg, "--json", *same_files, "--fixed-strings", "-e", pattern, "--", "."]
        bare = subprocess.run(bare_argv, capture_output=True, cwd=root)
        bare_matches = bare.stdout.count(b'"type":"match"')
        medians = interleaved_medians({
            "ours": lambda p=pattern: search_text(ctx, p),
            "bare": lambda argv=bare_argv: subprocess.run(argv, capture_output=True, cwd=root),
        }, args.runs)
        print(f"[{label}] pattern={pattern!r}: search_text {len(result.matches)} matches, bare rg {bare_matches}")
        print(report("  search_text", medians["ours"]))
        print(report("  bare rg --json --fixed-strings", medians["bare"]))
        (ours_wall, ours_cpu), (bare_wall, bare_cpu) = medians["ours"], medians["bare"]
        print(f"  ratio: wall {ours_wall / bare_wall:.2f}x, cpu {ours_cpu / bare_cpu:.2f}x   (goal <= 1.10x)")


if __name__ == "__main__":
    main()
