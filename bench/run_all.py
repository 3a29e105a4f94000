"""Run every benchmark in turn and print its figures: ``python bench/run_all.py``.

Each benchmark measures its baseline in the same run and prints the ratio
(issue 2 and issue 3 benchmarks). Benchmarks are never timed unit tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHES = ["bench_cli.py", "bench_pipeline.py", "bench_policy.py", "bench_scan.py", "bench_search.py"]


def main() -> int:
    here = Path(__file__).resolve().parent
    failed = 0
    for name in BENCHES:
        print(f"\n=== {name} ===", flush=True)
        failed += subprocess.call([sys.executable, str(here / name)]) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
