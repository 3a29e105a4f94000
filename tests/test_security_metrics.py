"""Security metrics: counters, rate, persistence, corrupt files, event cap (seed 000 P0 §3)."""

from __future__ import annotations

import io
import json
import threading
from datetime import datetime
from pathlib import Path

from localagent.safety.rule_checker import check_code
from localagent.safety.security_metrics import MAX_DETAIL, MAX_EVENTS, SecurityMetrics, get_metrics


def test_empty_metrics() -> None:
    data = SecurityMetrics().get_metrics()
    assert data["total_checks"] == 0 and data["static_blocks"] == 0
    assert data["interception_rate"] == 0.0
    assert data["false_release_rate"] == 0.0 and "理论值" in data["false_release_rate_note"]
    assert data["events"] == [] and data["by_category"] == {}


def test_counters_and_rate() -> None:
    metrics = SecurityMetrics()
    for _ in range(4):
        metrics.record_check("t1")
    metrics.record_static_block("network", "import socket", "t1")
    metrics.record_warning("environment", "os.environ", "t1")
    metrics.record_runtime_interception("path", "open /etc/passwd", "t2")
    metrics.record_runtime_interception("network", "socket.connect 127.0.0.1", "t2")
    metrics.record_runtime_interception("process", "subprocess.Popen", "t2")
    data = metrics.get_metrics()
    assert (data["total_checks"], data["static_blocks"], data["warnings"]) == (4, 1, 1)
    assert (data["runtime_path_interceptions"], data["runtime_network_interceptions"],
            data["runtime_other_interceptions"], data["runtime_interceptions"]) == (1, 1, 1, 3)
    assert data["by_category"] == {"network": 2, "path": 1, "process": 1}
    assert data["interception_rate"] == 1.0  # (1 static + 3 runtime) / 4 checks
    assert [e["type"] for e in data["events"]] == ["static_block", "warning", "runtime_interception",
                                                   "runtime_interception", "runtime_interception"]
    event = data["events"][0]
    assert set(event) == {"time", "type", "category", "detail", "task_id"}
    assert datetime.fromisoformat(event["time"]).tzinfo is not None
    assert (event["category"], event["detail"], event["task_id"]) == ("network", "import socket", "t1")


def test_record_report_counts_one_block_and_each_violation() -> None:
    metrics = SecurityMetrics()
    metrics.record_report(check_code("import socket\nopen('/etc/passwd')\neval('1')\n"), "t1")
    metrics.record_report(check_code("import os\nprint(os.getenv('LANG'))\n"), "t2")
    data = metrics.get_metrics()
    assert (data["total_checks"], data["static_blocks"], data["warnings"]) == (2, 1, 1)
    assert data["by_category"] == {"dangerous_call": 1, "network": 1, "path": 1}
    assert data["interception_rate"] == 0.5
    assert [e["task_id"] for e in data["events"]] == ["t1", "t1", "t1", "t2"]


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "security_metrics.json"
    metrics = SecurityMetrics()
    metrics.record_check("a")
    metrics.record_static_block("path", "C:\\Windows", "a")
    metrics.save_to_file(path)
    loaded = SecurityMetrics.load(path)
    assert loaded.get_metrics() == metrics.get_metrics()
    loaded.record_check("b")
    loaded.save_to_file(path)
    assert get_metrics(path).get_metrics()["total_checks"] == 2
    assert [p.name for p in path.parent.iterdir()] == ["security_metrics.json"]  # no temp file left


def test_missing_file_gives_empty_metrics(tmp_path: Path) -> None:
    assert get_metrics(tmp_path / "nope.json").get_metrics()["total_checks"] == 0
    assert get_metrics().get_metrics()["total_checks"] == 0


def test_corrupt_file_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "security_metrics.json"
    path.write_text("{not json", encoding="utf-8")
    assert SecurityMetrics.load(path).get_metrics()["total_checks"] == 0
    assert not path.exists()
    assert (tmp_path / "security_metrics.json.bad").read_text(encoding="utf-8") == "{not json"
    path.write_text(json.dumps({"version": 1, "total_checks": -3}), encoding="utf-8")
    assert SecurityMetrics.load(path).get_metrics()["total_checks"] == 0
    assert (tmp_path / "security_metrics.json.bad.1").exists()  # the first .bad is not overwritten


def test_events_are_capped_and_details_shortened(tmp_path: Path) -> None:
    metrics = SecurityMetrics()
    for index in range(MAX_EVENTS + 50):
        metrics.record_runtime_interception("path", f"event {index} " + "x" * 500, "t")
    data = metrics.get_metrics()
    assert len(data["events"]) == MAX_EVENTS
    assert data["events"][0]["detail"].startswith("event 50 ")
    assert all(len(e["detail"]) <= MAX_DETAIL for e in data["events"])
    assert data["runtime_path_interceptions"] == MAX_EVENTS + 50
    metrics.save_to_file(tmp_path / "m.json")
    assert len(json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["events"]) == MAX_EVENTS


def test_secrets_never_stored(tmp_path: Path) -> None:
    metrics = SecurityMetrics()
    metrics.record_runtime_interception("network", "header Authorization: Bearer abcdefghijklmnop1234", "t")
    metrics.record_static_block("dangerous_call", "LLM_API_KEY=sk-live-0123456789abcdef leaked", "t")
    metrics.save_to_file(tmp_path / "m.json")
    text = (tmp_path / "m.json").read_text(encoding="utf-8")
    assert "abcdefghijklmnop1234" not in text and "0123456789abcdef" not in text
    assert "LLM_API_KEY=***" in text


def test_print_summary_in_chinese_and_english() -> None:
    metrics = SecurityMetrics()
    metrics.record_check()
    metrics.record_static_block("network", "import socket")
    out = io.StringIO()
    metrics.print_summary(out)
    assert "静态阻断：1" in out.getvalue() and "拦截率：100.00%" in out.getvalue()
    out = io.StringIO()
    metrics.print_summary(file=out, lang="en")
    assert "static blocks: 1" in out.getvalue()


def test_thread_safe_counting() -> None:
    metrics = SecurityMetrics()

    def work() -> None:
        for _ in range(500):
            metrics.record_check()
            metrics.record_runtime_interception("network", "x")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    data = metrics.get_metrics()
    assert data["total_checks"] == 4000 and data["runtime_network_interceptions"] == 4000
    assert len(data["events"]) == MAX_EVENTS
