"""An in-process host with the reactor on a scripted fake Ollama, for coordinator tests."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pykka

from fake_ollama import FakeOllama
from tikitaka.actors.host import Host, HostOptions
from tikitaka.actors.llm_backend import OllamaBackend
from tikitaka.actors.reactor_events import FINAL, RunEvent
from tikitaka.protocol.settings import PeerSettings, ReactorSettings, Settings


class AgentHost:
    """`peers`: also run the bot (handshakes, routing), with these peer settings if a dict."""

    def __init__(self, tmp_path: Path, workspace: str, peers: bool | dict[str, Any] = False, **reactor: Any) -> None:
        self.fake = FakeOllama()
        self.sleeps: list[float] = []
        settings = Settings(reactor=ReactorSettings(**{"backend": "ollama", "ollama_host": self.fake.url, **reactor}),
                            peers=PeerSettings(**(peers if isinstance(peers, dict) else {})))
        path = tmp_path / "workspace.toml"
        path.write_text(workspace)

        def record_sleep(seconds: float, cancel: Any) -> None:
            self.sleeps.append(seconds)

        self.host = Host(HostOptions(
            workspace=path, settings=settings, peers=bool(peers) or peers == {},
            backend_factory=lambda: OllamaBackend(settings.reactor, sleep=record_sleep)))
        self.events: queue.Queue[Any] = queue.Queue()
        self.host.bus.subscribe(self.events.put)  # before start: no event is missed
        self.host.start()
        self.reactor = self.host.service("reactor")
        self.bot = self.host.service("bot")

    def run(self, prompt: str, timeout: float = 60, **kwargs: Any) -> tuple[Any, list[Any]]:
        """Submit and collect this run's events until its final one."""
        run_id = self.reactor.submit(prompt, **kwargs).get(timeout=5)
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
