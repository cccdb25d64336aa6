"""Answers are JSON objects (dicts) that also carry the call's request id."""
from __future__ import annotations

from typing import Any, Optional


class ApiObject(dict):  # type: ignore[type-arg]
    """A JSON object answered by the gateway, with ``request_id`` from ``X-Request-Id``."""

    request_id: Optional[str]

    def __init__(self, data: Any, request_id: Optional[str]) -> None:
        super().__init__(data if isinstance(data, dict) else {"data": data})
        self.request_id = request_id


class CreatedVideo(ApiObject):
    """A created video task; ``idempotency_key`` retries the same creation by hand, never paid twice."""

    idempotency_key: str

    def __init__(self, data: Any, request_id: Optional[str], idempotency_key: str) -> None:
        super().__init__(data, request_id)
        self.idempotency_key = idempotency_key
