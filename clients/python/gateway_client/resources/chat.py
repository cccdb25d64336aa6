from __future__ import annotations

import http.client
import json
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from .._errors import GatewayError, StreamInterruptedError, error_from_answer
from .._sse import iter_events
from .._transport import iter_lines
from .._types import ApiObject
from .._validate import non_empty_str
from ._base import Resource


class ChatStream:
    """The chunks of a streamed completion. Ends cleanly only on ``[DONE]``; a stream cut before
    it raises ``StreamInterruptedError`` and is never replayed (the call may already be paid)."""

    def __init__(self, response: http.client.HTTPResponse, conn: http.client.HTTPConnection) -> None:
        self._response = response
        self._conn = conn
        self.request_id: Optional[str] = response.headers.get("x-request-id")
        self.model: Optional[str] = response.headers.get("x-service-model")

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        try:
            for _event, data in iter_events(iter_lines(self._response)):
                if data == "[DONE]":
                    return
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise GatewayError("the stream carried an event that is not JSON", code="invalid_response", request_id=self.request_id) from None
                if isinstance(chunk, dict) and isinstance(chunk.get("error"), dict):
                    err = chunk["error"]
                    raise error_from_answer(0, err.get("code"), str(err.get("message") or "stream error"), self.request_id, chunk, None)
                yield chunk
            raise StreamInterruptedError("the stream ended before its end marker", code="stream_interrupted", request_id=self.request_id)
        except GatewayError as err:
            if err.request_id is None:
                err.request_id = self.request_id
            raise
        finally:
            self.close()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "ChatStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def call_headers(tags: Optional[Sequence[str]], session_id: Optional[str], request_id: Optional[str]) -> Dict[str, str]:
    headers: Dict[str, str] = {}
    if tags:
        if isinstance(tags, str) or not all(isinstance(t, str) and t and "," not in t for t in tags):
            raise ValueError("tags must be a list of non-empty strings without commas")
        if len(tags) > 10:
            raise ValueError("at most 10 tags per request")
        headers["X-Service-Tags"] = ",".join(tags)
    if session_id is not None:
        headers["X-Session-Id"] = non_empty_str("session_id", session_id)
    if request_id is not None:
        headers["X-Request-Id"] = non_empty_str("request_id", request_id)
    return headers


class Completions(Resource):
    def create(
        self,
        *,
        model: str,
        messages: List[Dict[str, Any]],
        stream: bool = False,
        tags: Optional[Sequence[str]] = None,
        session_id: Optional[str] = None,
        request_id: Optional[str] = None,
        **params: Any,
    ) -> Union[ApiObject, ChatStream]:
        """``POST /v1/chat/completions``; with ``stream=True`` an iterator of chunks."""
        non_empty_str("model", model)
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of {role, content} objects")
        body = {"model": model, "messages": messages, **params}
        headers = call_headers(tags, session_id, request_id)
        if stream:
            body["stream"] = True
            response, conn = self._client._transport.stream("POST", "/v1/chat/completions", json=body, headers={**self._client._auth_headers(), **headers})
            return ChatStream(response, conn)
        return self._call("POST", "/v1/chat/completions", json=body, headers=headers)


class Chat:
    def __init__(self, client: Any) -> None:
        self.completions = Completions(client)
