"""Cold start of the CLI: ``localagent --version`` (issue 2 benchmark; goal ≤ 0.08 s median).

Baseline in the same run: a bare ``python -c pass`` with the same interpreter, so
the figure that matters is what LocalAgent adds. Run: ``python bench/bench_cli.py``.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 21


def median_seconds(argv: list[str], runs: int = RUNS) -> float:
    """Run ``argv`` ``runs`` times (after one warm-up) and return the median wall time in seconds."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    beside = Path(sys.executable).with_name("localagent" + (".exe" if sys.platform == "win32" else ""))
    script = str(beside) if beside.exists() else shutil.which("localagent")
    cli = [script, "--version"] if script else [sys.executable, "-m", "localagent", "--version"]
    baseline = median_seconds([sys.executable, "-c", "pass"])
    module = median_seconds([sys.executable, "-m", "localagent", "--version"])
    console = median_seconds(cli)
    print(f"python -c pass (baseline)        {baseline * 1000:7.1f} ms")
    print(f"python -m localagent --version   {module * 1000:7.1f} ms  ({module / baseline:.2f}x baseline)")
    print(f"{' '.join(cli[-2:])[:32]:<32} {console * 1000:7.1f} ms  ({console / baseline:.2f}x baseline)"
          f"  goal <= 80 ms: {'met' if console <= 0.08 else 'NOT met'}")
    print(f"LocalAgent's own start-up cost   {(console - baseline) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
