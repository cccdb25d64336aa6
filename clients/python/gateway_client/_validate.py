"""Argument checks that fail before any request is sent."""
from __future__ import annotations

import re
from typing import Any

PRINTABLE_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


def non_empty_str(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return value


def id_segment(name: str, value: Any) -> str:
    """An id placed in a URL path: no slashes, no dot segments."""
    non_empty_str(name, value)
    if "/" in value or value in (".", "..") or any(c.isspace() for c in value):
        raise ValueError(f"{name} must be an id (no '/', whitespace or dot segments), got {value!r}")
    return value


def positive_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{name} must be a positive number")
    return float(value)


def idempotency_key(name: str, value: Any) -> str:
    if not isinstance(value, str) or not PRINTABLE_KEY.match(value):
        raise ValueError(f"{name} must be 1-255 printable ASCII characters")
    return value
