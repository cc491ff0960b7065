"""One coordinator tool call in the agent panel: a bordered card with the tool's name and
duration on top, its arguments, then its result (green when it went through, red when not)."""

from __future__ import annotations

import json
from typing import Any

from rich.panel import Panel
from rich.text import Text


def tool_card(event: dict[str, Any], label: str = "") -> Panel:
    """One tool call as a bordered card: name and duration on top, arguments, then the result."""
    result_data = event.get("result")
    ok = bool(result_data.get("ok", True)) if isinstance(result_data, dict) else True
    args = json.dumps(event.get("args"), ensure_ascii=False)
    result = json.dumps(result_data, ensure_ascii=False)
    body = Text()
    body.append("args   ", "dim").append(args[:300] + ("…" if len(args) > 300 else ""))
    body.append("\nresult ", "dim").append(result[:400] + ("…" if len(result) > 400 else ""),
                                           "green" if ok else "red")
    # (whose run under the card: before the tool's name, in a narrow panel, it pushed the name out)
    # (Text, not str: Rich reads a str title as markup)
    return Panel(body, title=Text(f"{event.get('tool')} · {event.get('duration', 0):.2f} s"), title_align="left",
                 subtitle=Text(label) if label else None, subtitle_align="left",
                 border_style="green" if ok else "red", expand=True)
