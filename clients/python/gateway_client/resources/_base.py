from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

from .._types import ApiObject

if TYPE_CHECKING:
    from .._client import Gateway


class Resource:
    def __init__(self, client: "Gateway") -> None:
        self._client = client

    def _call(self, method: str, path: str, *, json: Any = None, query: Optional[Mapping[str, Any]] = None, headers: Optional[Mapping[str, str]] = None) -> ApiObject:
        answer = self._client._transport.request(method, path, json=json, query=query, headers={**self._client._auth_headers(), **(headers or {})})
        return ApiObject(answer.json() if answer.body else {}, answer.request_id)
