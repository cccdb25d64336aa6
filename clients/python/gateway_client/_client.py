from __future__ import annotations

import os
from typing import Dict, Optional

from ._transport import RetryPolicy, Transport
from .resources.account import Estimates, KeyUsage, Scores, Usage
from .resources.assets import Assets
from .resources.chat import Chat
from .resources.private import Private
from .resources.videos import Videos


class Gateway:
    """A synchronous client for the model gateway, for server-side use only (the key is a secret).

    ``base_url`` is the gateway's origin (``https://…``; plain ``http`` only for localhost,
    127.0.0.1 and ::1). GET requests are retried up to ``max_retries`` times (0 turns retries
    off); paid POSTs and interrupted streams never are. Redirects are refused. Use it as a
    context manager, or call ``close()``, to close its connections.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        timeout: float = 600.0,
        max_retries: int = 2,
        retry: Optional[RetryPolicy] = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("GATEWAY_API_KEY")
        if not isinstance(key, str) or not key.strip():
            raise ValueError("api_key is required (or set GATEWAY_API_KEY)")
        url = base_url if base_url is not None else os.environ.get("GATEWAY_BASE_URL")
        if url is None:
            raise ValueError("base_url is required (or set GATEWAY_BASE_URL)")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError("max_retries must be an integer ≥ 0")
        self._api_key = key
        self._transport = Transport(url, timeout=timeout, retry=retry or RetryPolicy(max_retries=max_retries), default_headers={})
        self.chat = Chat(self)
        self.videos = Videos(self)
        self.assets = Assets(self)
        self.estimates = Estimates(self)
        self.key_usage = KeyUsage(self)
        self.usage = Usage(self)
        self.scores = Scores(self)
        self.private = Private(self)

    def _auth_headers(self) -> Dict[str, str]:
        # A private (ak-) key only ever travels in the private protocol's body.
        return {} if self._api_key.startswith("ak-") else {"Authorization": f"Bearer {self._api_key}"}

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "Gateway":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:  # never the key
        return f"Gateway(base_url={self._transport.origin.geturl()!r})"
