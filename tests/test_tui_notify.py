"""The TUI tells its user about tabs that need them (issue 12): a badge on a background tab that
waits for its user or finished while nobody looked, cleared when the prompt is answered or the
tab is shown; a toast. The real app on a real in-process host, the Claude stand-in in a tab."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import BASH_TAB
from tui_helpers import PREFIX, attach, until

from tikitaka.actors.host import Host
from tikitaka.app.tui.messages import HostEvent
from tikitaka.protocol.settings import NotifySettings, Settings

CLAUDE = Path(__file__).parent / "standins" / "claude_standin.py"


def claude_tab(*args: str) -> str:
    return f'[[tab]]\nname = "Claude"\ncommand = {json.dumps([sys.executable, str(CLAUDE), "--speed", "0.3", *args])}\n'


@pytest.fixture
def notify_host(plain_hosts):
    def start(**notify) -> Host:  # sh first: it is the tab in front
        return plain_hosts(BASH_TAB + claude_tab(), Settings(notify=NotifySettings(**notify)))

    return start


def bar(app) -> str:
    return str(app.tab_bar.content)


def toasts(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def submit(host: Host, text: str, **kwargs) -> None:
    outbox = host.workspace.get("Claude").get(timeout=5).terminal.outbox().get(timeout=5)
    assert outbox.submit(text, name="Claude", **kwargs).wait(10)


async def test_badges_for_a_background_tab_set_and_cleared(notify_host):
    host = notify_host(done_after=0.3)
    app = attach(host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: "Claude" in bar(app), what="the tab bar")
        state = lambda: host.workspace.get("Claude").get(timeout=5).terminal.agent().get(timeout=5).view.state  # noqa: E731
        await until(pilot, lambda: state() == "idle", what="Claude at its prompt")
        assert "needs you" not in bar(app) and "done" not in bar(app)

        submit(host, "make a demo dir")  # Claude works, then asks for permission
        await until(pilot, lambda: "! needs you" in bar(app), what="the waiting badge")
        assert bar(app).index("Claude") < bar(app).index("! needs you")  # on Claude's tab, not sh's
        await until(pilot, lambda: any(t.startswith("Claude needs you: Do you want to proceed?") for t in toasts(app)),
                    what="the waiting toast")

        submit(host, "1", enter=False, now=True)  # answered from elsewhere: the badge goes with the prompt
        await until(pilot, lambda: "! needs you" not in bar(app), what="the waiting badge cleared")
        await until(pilot, lambda: "✓ done" in bar(app), what="the done badge (finished while unseen)")
        assert any(t.startswith("Claude is done") for t in toasts(app))

        await pilot.press(PREFIX, "2")  # the user looks: the badge is seen
        await until(pilot, lambda: app.active_id == 2, what="Claude's tab in front")
        await until(pilot, lambda: "✓ done" not in bar(app), what="the done badge cleared")

        await pilot.press(PREFIX, "1")
        submit(host, "another")
        await until(pilot, lambda: "! needs you" in bar(app), what="the waiting badge again")
        await pilot.press(PREFIX, "2")
        await until(pilot, lambda: "! needs you" not in bar(app), what="the waiting badge cleared by showing the tab")
    app.client.close()


async def test_the_tab_in_front_gets_no_badge_and_badges_can_be_off(notify_host):
    host = notify_host(done_after=0.3, badge=False)
    app = attach(host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: "Claude" in bar(app), what="the tab bar")
        assert app.notifier.settings["badge"] is False  # the host's [notify] came in hello
        submit(host, "make a demo dir")
        await until(pilot, lambda: any(t.startswith("Claude needs you") for t in toasts(app)), what="the toast")
        assert "needs you" not in bar(app)  # the toast is the positive control: the notice did arrive
    app.client.close()


async def test_a_chatty_program_gets_one_toast_at_a_time(plain_hosts):
    """Six notifications (OSC 9) from a background tab at once stacked six toasts, five rows
    each, over the right of the screen for 8 s (a field tester: at 80 columns they cover the
    tab's text). One toast per tab while its last is up; each still reaches your terminal."""
    host = plain_hosts(BASH_TAB + '[[tab]]\nname = "bg"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\n')
    app = attach(host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: "bg" in bar(app), what="the tab bar")
        host.workspace.get("bg").get(timeout=5).terminal.write(
            b"for i in 1 2 3 4 5 6; do printf '\\e]9;note %s\\a' $i; done\r").get(timeout=5)
        await until(pilot, lambda: any("note 6" in w for w in app.notifier.written), what="the sixth notification")
        assert [t for t in toasts(app) if "note" in t] == ["bg: note 1"], toasts(app)
    app.client.close()


async def test_the_tab_bar_shows_each_tabs_agent_state_and_keeps_the_newer(notify_host):
    """The tab bar says what the host says of each tab (`idle`, `working`, `waiting`), from the
    agent-state events as they come; a tab list made before a state change and arriving after
    its event does not take the tab back to the older state."""
    host = notify_host()
    app = attach(host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: "Claude idle" in bar(app) and "sh idle" in bar(app), what="both idle")
        submit(host, "make a demo dir")  # Claude works, then asks for permission
        await until(pilot, lambda: "Claude working" in bar(app), what="working")
        await until(pilot, lambda: "! needs you" in bar(app), what="waiting, behind")
        await pilot.press(PREFIX, "2")  # in front: the state itself, no badge
        await until(pilot, lambda: "Claude waiting" in bar(app), what="waiting, in front")

        claude = next(t for t in app.tabs if t.name == "Claude")
        waited_since = claude.agent["since"]
        # Claude's row older than what the bar shows, sh's newer: sh's change shows the list was
        # taken, and Claude's must not have gone back with it.
        stale = [{**vars(t), "agent": {**t.agent, "state": "working", "since": waited_since - 5}}
                 if t.name == "Claude" else {**vars(t), "agent": {**t.agent, "state": "working", "since": waited_since}}
                 for t in app.tabs]
        app.post_message(HostEvent({"kind": "tabs", "tabs": stale}))
        await until(pilot, lambda: "sh working" in bar(app), what="the list taken")
        assert "Claude waiting" in bar(app)  # the older row did not win
        newer = [{**row, "agent": {**row["agent"], "state": "idle", "since": waited_since + 1}} for row in stale]
        app.post_message(HostEvent({"kind": "tabs", "tabs": newer}))
        await until(pilot, lambda: "Claude idle" in bar(app), what="a newer list is taken")


async def test_a_tab_that_needs_you_off_the_bar_is_marked_and_a_click_shows_it(plain_hosts):
    """Twelve tabs on an 80-column bar: Claude, the last, is off it -- and when it asked for
    permission, the bar said only "10▸": nothing told the user a tab needed them. The mark
    now carries the badge, and a click on it shows that tab."""
    shells = "".join(f'[[tab]]\nname = "shell-{n}"\ncommand = ["sleep", "600"]\n' for n in range(1, 12))
    host = plain_hosts(shells + claude_tab(), Settings(notify=NotifySettings(done_after=0.3)))
    app = attach(host)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.tabs) == 12 and "▸" in bar(app), what="a bar too narrow for every tab")
        assert "Claude" not in bar(app)
        state = lambda: host.workspace.get("Claude").get(timeout=5).terminal.agent().get(timeout=5).view.state  # noqa: E731
        await until(pilot, lambda: state() == "idle", what="Claude at its prompt")
        submit(host, "make a demo dir")  # Claude works, then asks for permission
        await until(pilot, lambda: "▸ !" in bar(app), what="the right-hand mark with the waiting badge")
        column = next(start for start, _end, tab_id in app.tab_bar.marks if tab_id == app.tabs[-1].id)
        await pilot.click(app.tab_bar, offset=(column, 0))
        await until(pilot, lambda: app.active_id == app.tabs[-1].id, what="Claude's tab shown")
        await until(pilot, lambda: "! needs you" not in bar(app) and "▸ !" not in bar(app), what="the badge seen")
    app.client.close()
