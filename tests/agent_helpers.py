"""An in-process host with the coordinator on a scripted fake server, for coordinator tests:
the fake Ollama (`backend="ollama"`) or the fake OpenAI-compatible server (`backend="openai"`),
both driven by the same `Reply` scripts."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pykka
from fake_ollama import FakeOllama
from fake_openai import FakeOpenAI

from tikitaka.actors.coordinator.events import FINAL, RunEvent
from tikitaka.actors.host import Host, HostOptions
from tikitaka.protocol.settings import CoordinatorSettings, PeerSettings, Settings


class AgentHost:
    """`peers`: also run the bot (handshakes, routing), with these peer settings if a dict."""

    def __init__(self, tmp_path: Path, workspace: str, backend: str = "ollama",
                 peers: bool | dict[str, Any] = False, **settings: Any) -> None:
        self.backend = backend
        self.sleeps: list[float] = []

        def record_sleep(seconds: float, cancel: Any) -> None:
            self.sleeps.append(seconds)

        if backend == "openai":
            from tikitaka.actors.coordinator.backends.openai_compat import OpenAIBackend

            self.fake: Any = FakeOpenAI(window=settings.get("num_ctx", 8192))
            coordinator = CoordinatorSettings(**{"backend": "openai", "base_url": self.fake.url, **settings})
            factory = lambda: OpenAIBackend(coordinator, sleep=record_sleep)  # noqa: E731
        else:
            from tikitaka.actors.coordinator.backends.ollama import OllamaBackend

            self.fake = FakeOllama()
            coordinator = CoordinatorSettings(**{"backend": "ollama", "ollama_host": self.fake.url, **settings})
            factory = lambda: OllamaBackend(coordinator, sleep=record_sleep)  # noqa: E731
        self.settings = coordinator
        path = tmp_path / "workspace.toml"
        path.write_text(workspace)
        self.host = Host(HostOptions(
            workspace=path, settings=Settings(coordinator=coordinator,
                                              peers=PeerSettings(**(peers if isinstance(peers, dict) else {}))),
            peers=bool(peers) or peers == {}, backend_factory=factory))
        self.events: queue.Queue[Any] = queue.Queue()
        self.host.bus.subscribe(self.events.put)  # before start: no event is missed
        self.host.start()
        self.coordinator = self.host.service("coordinator")
        self.bot = self.host.service("bot")

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

    # What a request asked for, whichever the backend.

    def schema(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.backend == "openai":
            return request["response_format"]["json_schema"]["schema"]
        return request["format"]

    def temperature(self, request: dict[str, Any]) -> float:
        return request["temperature"] if self.backend == "openai" else request["options"]["temperature"]

    def reply_budget(self, request: dict[str, Any]) -> int:
        return request["max_tokens"] if self.backend == "openai" else request["options"]["num_predict"]

    def close(self) -> None:
        self.host.stop()
        self.fake.close()
        pykka.ActorRegistry.stop_all()
