"""An in-process host with the coordinator on a scripted fake Ollama, for coordinator tests."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pykka

from fake_ollama import FakeOllama
from tikitaka.actors.coordinator import ops as coordinator_ops
from tikitaka.actors.host import Host, HostOptions
from tikitaka.actors.coordinator.backends.ollama import OllamaBackend
from tikitaka.actors.coordinator.events import FINAL, RunEvent
from tikitaka.protocol.settings import CoordinatorSettings, Settings


class AgentHost:
    def __init__(self, tmp_path: Path, workspace: str, **coordinator: Any) -> None:
        self.fake = FakeOllama()
        self.sleeps: list[float] = []
        settings = Settings(coordinator=CoordinatorSettings(**{"backend": "ollama", "ollama_host": self.fake.url, **coordinator}))
        path = tmp_path / "workspace.toml"
        path.write_text(workspace)
        self.host = Host(HostOptions(workspace=path, settings=settings, extensions=()))
        self.host.start()
        self.events: queue.Queue[Any] = queue.Queue()
        self.host.bus.subscribe(self.events.put)

        def record_sleep(seconds: float, cancel: Any) -> None:
            self.sleeps.append(seconds)

        coordinator_ops.register(self.host, backend_factory=lambda: OllamaBackend(settings.coordinator, sleep=record_sleep))
        self.coordinator = self.host.service("coordinator")

    def run(self, prompt: str, timeout: float = 60, **kwargs: Any) -> tuple[Any, list[Any]]:
        """Submit and collect this run's events until its final one."""
        run_id = self.coordinator.submit(prompt, **kwargs).get(timeout=5)
        return self.collect(run_id, timeout)

    def collect(self, run_id: str, timeout: float = 60) -> tuple[Any, list[Any]]:
        seen = []
        while True:
            event = self.events.get(timeout=timeout)
            if isinstance(event, RunEvent) and event.run_id == run_id:
                seen.append(event)
                if isinstance(event, FINAL):
                    return event, seen

    def close(self) -> None:
        self.host.stop()
        self.fake.close()
        pykka.ActorRegistry.stop_all()
