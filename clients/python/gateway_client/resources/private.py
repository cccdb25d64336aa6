"""The private protocol under ``/server``: the ``ak-`` key and ``clientRequestId`` travel in the body."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional, Union

from .._errors import GatewayError, NotFoundError
from .._types import ApiObject
from .._validate import idempotency_key, non_empty_str
from ._base import Resource
from .chat import ChatStream


class Private(Resource):
    def call(
        self,
        *,
        client_request_id: str,
        model: str,
        input: Dict[str, Any],
        stream: bool = False,
        wait_ms: Optional[int] = None,
    ) -> Union[ApiObject, ChatStream]:
        """Runs a call as a durable job. Answers ``{task_id, client_request_id, status, result?,
        error?}`` once finished or ``wait_ms`` ran out; calling again with the same
        ``client_request_id`` returns the same job and never charges twice."""
        body = self._body(client_request_id=client_request_id)
        body["model"] = non_empty_str("model", model)
        if not isinstance(input, dict):
            raise ValueError("input must be the body of the matching standard call (a dict)")
        body["input"] = input
        if wait_ms is not None:
            if isinstance(wait_ms, bool) or not isinstance(wait_ms, int) or not 0 <= wait_ms <= 120_000:
                raise ValueError("wait_ms must be an integer from 0 to 120000")
            body["wait_ms"] = wait_ms
        if stream:
            body["stream"] = True
            response, conn = self._client._transport.stream("POST", "/server/v1/call", json=body)
            return ChatStream(response, conn)
        return self._envelope("/server/v1/call", body)

    def get_result(self, *, client_request_id: Optional[str] = None, task_id: Optional[str] = None) -> ApiObject:
        """The job's current state; a miss (unknown, or another owner's) raises ``NotFoundError``."""
        return self._envelope("/server/v1/getResult", self._lookup(client_request_id, task_id))

    def cancel(self, *, client_request_id: Optional[str] = None, task_id: Optional[str] = None) -> ApiObject:
        return self._envelope("/server/v1/cancel", self._lookup(client_request_id, task_id))

    def _lookup(self, client_request_id: Optional[str], task_id: Optional[str]) -> Dict[str, Any]:
        if (client_request_id is None) == (task_id is None):
            raise ValueError("give exactly one of client_request_id and task_id")
        if task_id is not None:
            body = self._body()
            body["taskId"] = non_empty_str("task_id", task_id)
            return body
        return self._body(client_request_id=client_request_id)

    def _body(self, client_request_id: Optional[str] = None) -> Dict[str, Any]:
        key = self._client._api_key
        if not key.startswith("ak-"):
            raise ValueError("the private protocol takes a private key (ak-…)")
        body: Dict[str, Any] = {"apiKey": key}
        if client_request_id is not None:
            body["clientRequestId"] = idempotency_key("client_request_id", client_request_id)
        return body

    def _envelope(self, path: str, body: Dict[str, Any]) -> ApiObject:
        # legacy_v1 keys answer the same JSON bytes as text/plain, and a miss as an empty body.
        answer = self._client._transport.request("POST", path, json=body)
        if not answer.body.strip():
            raise NotFoundError("task not found", status=answer.status, code="not_found", request_id=answer.request_id)
        try:
            envelope = json.loads(answer.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise GatewayError("the gateway answered a body that is not JSON", status=answer.status, code="invalid_response", request_id=answer.request_id) from None
        code = envelope.get("code") if isinstance(envelope, dict) else None
        if code == -1:
            raise NotFoundError(str(envelope.get("message") or "task not found"), status=answer.status, code="not_found", request_id=answer.request_id, body=envelope)
        if code != 0:
            raise GatewayError(str(envelope.get("message") if isinstance(envelope, dict) else "unexpected answer"), status=answer.status, code=str(envelope.get("error_code") or code) if isinstance(envelope, dict) else None, request_id=answer.request_id, body=envelope)
        return ApiObject(envelope.get("data"), answer.request_id)
