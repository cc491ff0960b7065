"""Every coordinator run, appended as one JSON line to a per-day file in the state directory."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any


class Transcript:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()

    def start(self, request: Any, backend: str, model: str) -> dict[str, Any]:
        return {"run_id": request.run_id, "started": time.time(), "source": request.source,
                "prompt": request.prompt, "backend": backend, "model": model, "turns": []}

    def finish(self, record: dict[str, Any], outcome: str, detail: str) -> Path:
        record.update(ended=time.time(), outcome=outcome, detail=detail)
        path = self.directory / time.strftime("runs-%Y-%m-%d.jsonl")
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line)
        return path
