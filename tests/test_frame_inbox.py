"""Screen frames the app has not drawn yet wait merged, one per tab (app/tui/frame_inbox.py):
what the view gets after a stall is the screen the frames lead to, never a backlog. The
stalled terminal itself: test_attach_faults_tmux.py."""

from __future__ import annotations

from tikitaka.app.tui.frame_inbox import FrameInbox


def frame(serial: int, lines: dict[str, str], full: bool = False, tab: int = 1, cursor: int = 0) -> dict:
    return {"kind": "screen", "tab": tab, "serial": serial, "full": full, "rows": 3, "cols": 10,
            "cursor": [cursor, 0, True], "lines": lines}


def test_frames_not_taken_merge_into_the_screen_they_lead_to():
    inbox = FrameInbox()
    assert inbox.put(frame(1, {"0": "a", "1": "b", "2": "c"}, full=True))  # the app is told once...
    assert not inbox.put(frame(2, {"1": "B"}, cursor=1))  # ...not again while one waits
    assert not inbox.put(frame(3, {"2": "C"}, cursor=2))
    assert inbox.put(frame(1, {"0": "x"}, tab=2))  # another tab has its own
    got = inbox.take(1)
    assert got is not None and got["full"] and got["serial"] == 3 and got["cursor"] == [2, 0, True]
    assert got["lines"] == {"0": "a", "1": "B", "2": "C"}
    assert inbox.take(1) is None and inbox.take(2)["lines"] == {"0": "x"}


def test_a_full_frame_starts_again_a_late_one_goes_under_and_an_old_diff_is_dropped():
    inbox = FrameInbox()
    inbox.put(frame(5, {"0": "old"}))
    inbox.put(frame(6, {"1": "new"}, full=True))
    assert inbox.take(1)["lines"] == {"1": "new"}  # everything before a full frame is gone

    inbox.put(frame(8, {"1": "diff"}))
    inbox.put(frame(7, {"0": "s0", "1": "s1", "2": "s2"}, full=True))  # a snapshot that came late
    got = inbox.take(1)
    assert got["full"] and got["serial"] == 8 and got["lines"] == {"0": "s0", "1": "diff", "2": "s2"}

    inbox.put(frame(9, {"0": "kept"}))
    inbox.put(frame(4, {"0": "stale"}))  # older than what waits: dropped
    assert inbox.take(1)["lines"] == {"0": "kept"}
