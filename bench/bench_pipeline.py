"""The image-copy task over 1,000 images (issue 2 benchmark).

Measures, in one run:
- the pipeline's own time beyond the copying (goal ≤ 0.5 s): ``prepare_task`` +
  ``run_task`` (rule checker, sandbox, guard, counting) minus a baseline that runs
  the very same task code with a plain ``python`` child and no checks, on a fresh
  copy of the same workspace; runs interleaved, medians; CPU time too (from a
  guard-only run: under bubblewrap the task's CPU time is not visible here);
- the number of model calls per task (goal ≤ 3; seed 000's pipeline has four) and
  the prompt tokens sent (goal ≤ 4,000), with a scripted OpenAI-compatible server
  on 127.0.0.1 answering at once (so only our side is measured). Tokens are the
  server's estimate (characters / 4) — Chinese text is denser, so the character
  count is printed too.

Run: ``python bench/bench_pipeline.py [--images 1000]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from localagent.agent.session import build_session  # noqa: E402
from localagent.agent.task import prepare_task, run_task  # noqa: E402
from localagent.config import Settings  # noqa: E402
from localagent.ui.demo import png_bytes  # noqa: E402
from tests.fake_llm.server import FakeLLMServer, Reply  # noqa: E402
from tests.helpers import COPY_IMAGES_CODE, task_reply  # noqa: E402

SENTENCE = "把这个文件夹里的图片复制一份"


def make_images(root: Path, count: int) -> None:
    """Create ``root/input`` with ``count`` small PNG files in 10 sub-folders."""
    for number in range(count):
        folder = root / "input" / f"album_{number % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"photo_{number:04d}.png").write_bytes(png_bytes(64, 48, (number % 256, 80, 160)))


def fresh_workspace(template: Path, parent: Path, name: str) -> Path:
    target = parent / name
    shutil.copytree(template / "input", target / "input")
    return target


def pipeline_seconds(workspace: Path, settings: Settings) -> tuple[float, object]:
    session = build_session(settings, lang="zh", workspace=workspace, create_missing=False)
    start = time.perf_counter()
    task = prepare_task(session, SENTENCE)
    task = run_task(session, task)
    return time.perf_counter() - start, task


def _cpu_seconds() -> float:
    """Return user + system CPU seconds of this process and of its children that were waited for."""
    import os

    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def baseline_seconds(workspace: Path, code: str) -> tuple[float, float]:
    """The same task code in a plain child: the copying itself plus an interpreter start; ``(wall s, CPU s)``."""
    (workspace / "output").mkdir(exist_ok=True)
    script = workspace / "baseline_task.py"
    script.write_text(code, encoding="utf-8")
    cpu, start = _cpu_seconds(), time.perf_counter()
    subprocess.run([sys.executable, "-I", str(script)], cwd=workspace, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu_seconds() - cpu


def guard_only_seconds(workspace: Path) -> tuple[float, float]:
    """Prepare the task and run it in the sandbox runner with the guard only; ``(wall s, CPU s)``.

    Here for the CPU figure: under bubblewrap the task's CPU time never reaches this
    process (bwrap's monitor does not wait for the task), under the guard alone it does.
    """
    from localagent.executor.sandbox_runner import run_task as run_in_sandbox

    session = build_session(Settings(), lang="zh", workspace=workspace, create_missing=False)
    cpu, start = _cpu_seconds(), time.perf_counter()
    task = prepare_task(session, SENTENCE)
    result = run_in_sandbox(task.code_path, session.layout, task.id, isolation="guard-only")
    assert result.returncode == 0 and len(result.new_output_files) > 0, result
    return time.perf_counter() - start, _cpu_seconds() - cpu


def measure_template(template: Path, scratch: Path, runs: int) -> None:
    from localagent.agent.templates import match_template, render_template

    code = render_template(match_template(SENTENCE))
    own, totals, bases, base_cpus, guard_walls, guard_cpus = [], [], [], [], [], []
    for run in range(runs):  # interleaved: the machine's load changes from second to second
        total, task = pipeline_seconds(fresh_workspace(template, scratch, f"p{run}"), Settings())
        base, base_cpu = baseline_seconds(fresh_workspace(template, scratch, f"b{run}"), code)
        guard_wall, guard_cpu = guard_only_seconds(fresh_workspace(template, scratch, f"g{run}"))
        assert task.status == "success", task.message
        totals.append(total)
        bases.append(base)
        own.append(total - base)
        base_cpus.append(base_cpu)
        guard_walls.append(guard_wall - base)
        guard_cpus.append(guard_cpu - base_cpu)
    median = statistics.median
    print(f"built-in template, {task.succeeded} images, isolation {task.isolation}:")
    print(f"  pipeline total            {median(totals):6.3f} s (median of {runs})")
    print(f"  baseline (plain python)   {median(bases):6.3f} s   cpu {median(base_cpus):6.3f} s")
    print(f"  pipeline's own time       {median(own):6.3f} s  "
          f"({median(totals) / median(bases):.2f}x baseline)  goal <= 0.5 s: "
          f"{'met' if median(own) <= 0.5 else 'NOT met'}")
    print(f"  own time, guard-only run  wall {median(guard_walls):6.3f} s   cpu {median(guard_cpus):6.3f} s  "
          "(prepare + sandbox runner with the guard alone, minus the baseline)")


def measure_model_path(template: Path, scratch: Path) -> None:
    with FakeLLMServer() as server:
        server.script(Reply.text(task_reply(COPY_IMAGES_CODE)), Reply.text('{"passed": true, "reason": "只复制图片"}'))
        settings = Settings(llm_api_url=server.chat_url, llm_api_key="sk-bench-not-a-real-key")
        total, task = pipeline_seconds(fresh_workspace(template, scratch, "model"), settings)
        chars = sum(len(str(m.get("content") or "")) for r in server.requests for m in r.messages)
        tokens = sum(-(-sum(len(str(m.get("content") or "")) for m in r.messages) // 4) for r in server.requests)
        calls = len(server.requests)
    assert task.status == "success", task.message
    print(f"model path (scripted server), {task.succeeded} images:")
    print(f"  model calls per task      {calls:6d}    (seed 000 pipeline: 4; goal <= 3: {'met' if calls <= 3 else 'NOT met'})")
    print(f"  prompt characters sent    {chars:6d}")
    print(f"  prompt tokens (chars/4)   {tokens:6d}    goal <= 4000: {'met' if tokens <= 4000 else 'NOT met'}")
    print(f"  pipeline total            {total:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="la-bench-") as tmp:
        template = Path(tmp) / "template"
        make_images(template, args.images)
        measure_template(template, Path(tmp), args.runs)
        measure_model_path(template, Path(tmp))


if __name__ == "__main__":
    main()
