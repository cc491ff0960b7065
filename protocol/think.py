"""Separating `<think>...</think>` from streamed text, even when a tag is split across chunks.

The visible text is returned; what was inside the tags is kept in `thinking` (shown as
progress, never part of the answer), and `thought_chunks` counts the chunks that fell inside.
"""

from __future__ import annotations

OPEN, CLOSE = "<think>", "</think>"


class ThinkStripper:
    def __init__(self) -> None:
        self._inside = False
        self._pending = ""  # a possible partial tag held back until the next chunk
        self.thinking: list[str] = []
        self.thought_chunks = 0

    def feed(self, chunk: str) -> str:
        text = self._pending + chunk
        self._pending = ""
        out: list[str] = []
        if self._inside:
            self.thought_chunks += 1
        while text:
            tag = CLOSE if self._inside else OPEN
            index = text.find(tag)
            if index >= 0:
                (self.thinking if self._inside else out).append(text[:index])
                text = text[index + len(tag):]
                self._inside = not self._inside
                continue
            keep = _partial_suffix(text, tag)
            (self.thinking if self._inside else out).append(text[: len(text) - keep])
            self._pending = text[len(text) - keep:] if keep else ""
            break
        return "".join(out)

    def flush(self) -> str:
        rest, self._pending = ("" if self._inside else self._pending), ""
        return rest


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
