"""Server-sent events read line by line from a blocking response."""
from __future__ import annotations

from typing import Iterator, Optional, Tuple


def iter_events(lines: Iterator[bytes]) -> Iterator[Tuple[Optional[str], str]]:
    """Yields ``(event name or None, data)`` per event; multi-line data is joined with newlines."""
    event: Optional[str] = None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data:
        yield event, "\n".join(data)
