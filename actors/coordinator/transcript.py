"""Every coordinator run, appended as one JSON line to a per-day file in the state directory;
days older than the kept number are removed when a new day's first run is recorded. A host on
another socket than the default keeps its own files (`runs-NAME-XXXXXX-2026-12-06.jsonl`, the
tag its event log has: `paths.host_tag`), so two workspaces' runs do not mix."""

from __future__ import annotations

import datetime
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from ..private_file import append_line, make_private_dir


class Transcript:
    def __init__(self, directory: Path, keep_days: int = 0, tag: str = "") -> None:
        self.directory = directory
        self.keep_days = keep_days  # 0: keep every day
        self.prefix = f"runs{tag}-"  # (`tag`: the host's, see paths.host_tag)
        self._day_file = re.compile(re.escape(self.prefix) + r"(\d{4})-(\d{2})-(\d{2})\.jsonl")
        self._lock = threading.Lock()
        self._pruned_for: str | None = None  # the day the old files were last looked at

    def start(self, request: Any, backend: str, model: str) -> dict[str, Any]:
        return {"run_id": request.run_id, "started": time.time(), "source": request.source,
                "prompt": request.prompt, "backend": backend, "model": model, "turns": []}

    def finish(self, record: dict[str, Any], outcome: str, detail: str) -> Path:
        """Append the run. OSError names the file when it cannot be written, or an old day's
        file that could not be removed (the run is recorded by then)."""
        record.update(ended=time.time(), outcome=outcome, detail=detail)
        day = time.strftime("%Y-%m-%d")
        path = self.directory / f"{self.prefix}{day}.jsonl"
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8", "backslashreplace")
        with self._lock:
            make_private_dir(self.directory)  # (it holds the tab screens the model read: 0600, 0700)
            append_line(path, line)
            if self.keep_days and self._pruned_for != day:
                self._pruned_for = day  # once a day: a file that cannot go is reported once
                self._prune(datetime.date.fromisoformat(day))
        return path

    def _prune(self, today: datetime.date) -> None:
        # By the date in the name, not the file's time: a copied or touched file keeps its day.
        oldest = today - datetime.timedelta(days=self.keep_days)
        for path in self.directory.iterdir():
            match = self._day_file.fullmatch(path.name)  # (this host's own: another's are its to prune)
            if not match:
                continue
            try:
                day = datetime.date(*map(int, match.groups()))
            except ValueError:  # runs-2026-13-45.jsonl: not a day we wrote
                continue
            if day < oldest:
                path.unlink(missing_ok=True)
