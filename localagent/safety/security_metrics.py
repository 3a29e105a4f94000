"""Security metrics: counters, rates and an event log (seed 000 "安全边界策略（P0 级）" §3).

Collected: static blocks and warnings, runtime path / network / other interceptions, counts by
category (网络违规 ``network``, 路径违规 ``path``, 危险调用 ``dangerous_call``, and ``destructive``,
``import``, ``invalid_code``, ``llm_review`` …), and events ``{time, type, category, detail, task_id}``.

* ``interception_rate = (static_blocks + runtime interceptions) / total_checks`` (0.0 with no checks),
  exactly the seed's formula; a run can be intercepted more than once, so it may exceed 1.
* ``false_release_rate`` is 0.0: the seed states it as the theoretical value of the two walls (static
  check + runtime guard), not a measurement.
* ``static_blocks`` counts blocked checks (one per blocked code submission); ``by_category`` counts
  every violation and interception.

Kept across runs in ``workspace/logs/security_metrics.json`` (the caller passes the path); writes are
atomic, the event list keeps the last :data:`MAX_EVENTS`, details are shortened and scrubbed of
anything that looks like a key. Thread-safe: the GUI runs tasks off the UI thread.

Usage (seed 000)::

    metrics = get_metrics("workspace/logs/security_metrics.json")
    metrics.print_summary()
    metrics.save_to_file("workspace/logs/security_metrics.json")
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from localagent.i18n import tr

if TYPE_CHECKING:
    from localagent.safety.rule_checker import CheckReport

MAX_EVENTS = 1000
MAX_DETAIL = 200  # characters
SCHEMA_VERSION = 1

#: Static-check kinds mapped to the seed's classes (网络违规 / 路径违规 / 危险调用) and a few more.
KIND_CATEGORY = {
    "network": "network", "path_outside": "path", "sensitive_path": "path", "write_outside_output": "path",
    "destructive": "destructive",
    "import_not_allowed": "import", "syntax_error": "invalid_code", "too_large": "invalid_code",
}
_RUNTIME_COUNTERS = {"path": "runtime_path_interceptions", "network": "runtime_network_interceptions"}
_COUNTERS = ("static_blocks", "warnings", "runtime_path_interceptions", "runtime_network_interceptions",
             "runtime_other_interceptions", "total_checks")
_SECRET_PATTERNS = (
    (re.compile(r"\b(sk|pk|rk|ak)-[A-Za-z0-9_\-]{8,}"), r"\1-***"),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{8,}"), "Bearer ***"),
    (re.compile(r"(?i)\b([A-Z0-9_]*(?:api[_-]?key|token|secret|password|passwd)[A-Z0-9_]*)\s*[=:]\s*\S+"),
     r"\1=***"),
    (re.compile(r"\b[A-Za-z0-9_\-]{40,}\b"), "***"),
)


def category_of(kind: str) -> str:
    """Return the metrics category of a rule-checker ``kind`` (``dangerous_call`` for the escapes)."""
    return KIND_CATEGORY.get(kind, "dangerous_call")


def clean_detail(detail: object) -> str:
    """Return ``detail`` as one line of at most :data:`MAX_DETAIL` characters with secrets masked."""
    text = " ".join(str(detail).split())
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL - 1] + "…"


class SecurityMetrics:
    """Counters and events of static checks and runtime interceptions (seed 000 P0 §3)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._counters = dict.fromkeys(_COUNTERS, 0)
        self._by_category: dict[str, int] = {}
        self._events: list[dict[str, str]] = []

    # --- recording ------------------------------------------------------------------------

    def record_check(self, task_id: str = "") -> None:
        """Count one static check (the denominator of the interception rate)."""
        with self._lock:
            self._counters["total_checks"] += 1

    def record_static_block(self, category: str, detail: str, task_id: str = "") -> None:
        """Count one blocked check with its category (e.g. ``network``, ``path``, ``llm_review``)."""
        with self._lock:
            self._counters["static_blocks"] += 1
            self._count(category)
            self._event("static_block", category, detail, task_id)

    def record_warning(self, category: str, detail: str, task_id: str = "") -> None:
        """Count one warning (reported, not blocked)."""
        with self._lock:
            self._counters["warnings"] += 1
            self._event("warning", category, detail, task_id)

    def record_runtime_interception(self, category: str, detail: str, task_id: str = "") -> None:
        """Count one interception by the runtime guard.

        Args:
            category: ``path`` and ``network`` have their own counters; anything else (``process``,
                ``native``, ``destructive``, ``import`` …) counts as other.
            detail: what was stopped (shortened and scrubbed before it is stored).
            task_id: the task the interception belongs to.
        """
        with self._lock:
            self._counters[_RUNTIME_COUNTERS.get(category, "runtime_other_interceptions")] += 1
            self._count(category)
            self._event("runtime_interception", category, detail, task_id)

    def record_report(self, report: CheckReport, task_id: str) -> None:
        """Record one rule-checker report: one check, one block if it failed, one event per finding.

        Args:
            report: from ``rule_checker.check_code``.
            task_id: the task the code belongs to.
        """
        with self._lock:
            self.record_check(task_id)
            if report.violations:
                self._counters["static_blocks"] += 1
            for item in report.violations:
                category = category_of(item.kind)
                self._count(category)
                self._event("static_block", category, f"L{item.line} {item.kind}: {item.detail}", task_id)
            for item in report.warnings:
                self.record_warning(item.kind, f"L{item.line}: {item.detail}", task_id)

    def _count(self, category: str) -> None:
        self._by_category[category] = self._by_category.get(category, 0) + 1

    def _event(self, kind: str, category: str, detail: str, task_id: str) -> None:
        self._events.append({"time": datetime.now(timezone.utc).isoformat(timespec="seconds"), "type": kind,
                             "category": clean_detail(category)[:40], "detail": clean_detail(detail),
                             "task_id": clean_detail(task_id)[:64]})
        del self._events[:-MAX_EVENTS]

    # --- reading --------------------------------------------------------------------------

    def get_metrics(self) -> dict[str, Any]:
        """Return a snapshot.

        Returns:
            ``{static_blocks, warnings, runtime_path_interceptions, runtime_network_interceptions,
            runtime_other_interceptions, runtime_interceptions, total_checks, by_category {name: int},
            interception_rate (float), false_release_rate (0.0), false_release_rate_note,
            events [{time ISO 8601 UTC, type, category, detail, task_id}]}`` (copies).
        """
        with self._lock:
            data: dict[str, Any] = dict(self._counters)
            runtime = sum(self._counters[k] for k in _COUNTERS if k.startswith("runtime_"))
            checks = self._counters["total_checks"]
            data["runtime_interceptions"] = runtime
            data["by_category"] = dict(sorted(self._by_category.items()))
            data["interception_rate"] = round((self._counters["static_blocks"] + runtime) / checks, 4) \
                if checks else 0.0
            data["false_release_rate"] = 0.0
            data["false_release_rate_note"] = "双重防护理论值 (theoretical value of the two walls, not measured)"
            data["events"] = [dict(e) for e in self._events]
            return data

    def print_summary(self, file: TextIO | None = None, lang: str = "zh") -> None:
        """Print a short human-readable summary (Chinese by default) to ``file`` (stdout when ``None``)."""
        data = self.get_metrics()
        out = file or sys.stdout
        lines = [
            tr(lang, "安全度量汇总", "Security metrics"),
            tr(lang, f"  总检查次数：{data['total_checks']}", f"  checks: {data['total_checks']}"),
            tr(lang, f"  静态阻断：{data['static_blocks']}　警告：{data['warnings']}",
               f"  static blocks: {data['static_blocks']}  warnings: {data['warnings']}"),
            tr(lang, f"  运行时拦截：路径 {data['runtime_path_interceptions']}，网络 "
               f"{data['runtime_network_interceptions']}，其他 {data['runtime_other_interceptions']}",
               f"  runtime interceptions: path {data['runtime_path_interceptions']}, network "
               f"{data['runtime_network_interceptions']}, other {data['runtime_other_interceptions']}"),
            tr(lang, f"  拦截率：{data['interception_rate']:.2%}　误放行率：0%（双重防护理论值）",
               f"  interception rate: {data['interception_rate']:.2%}  false release rate: 0% (theoretical)"),
        ]
        if data["by_category"]:
            parts = "，".join(f"{name} {count}" for name, count in data["by_category"].items())
            lines.append(tr(lang, f"  分类：{parts}", f"  by category: {parts}"))
        for event in data["events"][-5:]:
            lines.append(f"  [{event['time']}] {event['type']} {event['category']} "
                         f"{event['task_id']} {event['detail']}")
        print("\n".join(lines), file=out)

    # --- persistence ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return the stored form: ``{"version", counters…, "by_category", "events"}``."""
        with self._lock:
            return {"version": SCHEMA_VERSION, **self._counters, "by_category": dict(self._by_category),
                    "events": [dict(e) for e in self._events[-MAX_EVENTS:]]}

    def save_to_file(self, path: str | os.PathLike[str]) -> None:
        """Write the metrics as JSON atomically (temporary file in the same folder, then ``os.replace``).

        Args:
            path: e.g. ``workspace/logs/security_metrics.json``; parent folders are created.

        Raises:
            OSError: the folder cannot be written (the previous file is left as it was).
        """
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SecurityMetrics:
        """Read metrics saved by :meth:`save_to_file`.

        Args:
            path: the JSON file.

        Returns:
            The metrics; empty when the file is missing. A corrupt file (bad JSON, wrong shape) is
            moved aside to ``<name>.bad`` (``<name>.bad.N`` if taken) so nothing is lost, and empty
            metrics are returned.
        """
        source = Path(path)
        try:
            raw = source.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError):
            return cls._set_aside(source)
        try:
            return cls._from_dict(json.loads(raw))
        except (ValueError, TypeError, AttributeError, KeyError):
            return cls._set_aside(source)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> SecurityMetrics:
        if not isinstance(data, dict) or data.get("version") != SCHEMA_VERSION:
            raise ValueError("not a metrics file")
        metrics = cls()
        for key in _COUNTERS:
            value = data.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(key)
            metrics._counters[key] = value
        for name, count in dict(data.get("by_category", {})).items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(name)
            metrics._by_category[str(name)] = count
        events = data.get("events", [])
        if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
            raise ValueError("events")
        keys = ("time", "type", "category", "detail", "task_id")
        metrics._events = [{k: str(e.get(k, "")) for k in keys} for e in events[-MAX_EVENTS:]]
        return metrics

    @classmethod
    def _set_aside(cls, source: Path) -> SecurityMetrics:
        target = source.with_name(source.name + ".bad")
        number = 1
        while target.exists():
            target = source.with_name(f"{source.name}.bad.{number}")
            number += 1
        try:
            os.replace(source, target)
        except OSError:
            pass  # cannot move it: it stays where it is, and is not read
        return cls()


def get_metrics(path: str | os.PathLike[str] | None = None) -> SecurityMetrics:
    """Return the metrics stored at ``path`` (seed 000 §3 usage), or empty metrics.

    Args:
        path: e.g. ``workspace/logs/security_metrics.json``; ``None`` or a missing file gives empty
            metrics (no module-level singleton: each call returns a new object).

    Returns:
        A :class:`SecurityMetrics`.
    """
    return SecurityMetrics() if path is None else SecurityMetrics.load(path)
