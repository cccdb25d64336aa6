"""Estimates, the key's own usage, account usage reports and logs, and scores."""
from __future__ import annotations

import re
from typing import Any, Dict, Optional, Union

from .._types import ApiObject
from .._validate import non_empty_str
from ._base import Resource

ESTIMATE_ENDPOINTS = ("chat/completions", "images/generations", "videos")
GROUPS = ("tag", "model", "key", "day")
SCORE_NAME = re.compile(r"^[a-z0-9._-]{1,40}$")


class Estimates(Resource):
    def create(self, *, endpoint: str, payload: Dict[str, Any]) -> ApiObject:
        """``{estimated_micro_usd, is_free}``; calls no upstream and reserves nothing."""
        if endpoint not in ESTIMATE_ENDPOINTS:
            raise ValueError(f"endpoint must be one of {', '.join(ESTIMATE_ENDPOINTS)}")
        if not isinstance(payload, dict):
            raise ValueError("payload must be the request body of that endpoint (a dict)")
        return self._call("POST", "/v1/estimates", json={"endpoint": endpoint, "payload": payload})


class KeyUsage(Resource):
    def get(self) -> ApiObject:
        """The key's own usage view: caps, spend, limits, 30 days by model, 20 latest calls."""
        return self._call("GET", "/v1/key/usage")


class Usage(Resource):
    def report(self, *, group_by: str, start: str, end: str, format: Optional[str] = None) -> Union[ApiObject, str]:
        """The account's spend by tag, model, key or day (at most 93 days); ``format="csv"``
        returns the CSV text. Needs a key whose owner turned usage access on."""
        if group_by not in GROUPS:
            raise ValueError(f"group_by must be one of {', '.join(GROUPS)}")
        non_empty_str("start", start)
        non_empty_str("end", end)
        query = {"group_by": group_by, "start": start, "end": end}
        if format is not None:
            if format != "csv":
                raise ValueError("format must be 'csv' or omitted")
            answer = self._client._transport.request("GET", "/v1/usage/report", query={**query, "format": "csv"}, headers=self._client._auth_headers())
            return answer.body.decode("utf-8")
        return self._call("GET", "/v1/usage/report", query=query)

    def logs(self, **filters: Any) -> ApiObject:
        """A page of request records; pass ``cursor`` from the previous page to go on."""
        return self._call("GET", "/v1/usage/logs", query=filters)


class Scores(Resource):
    def create(
        self,
        *,
        name: str,
        value: float,
        request_id: Optional[str] = None,
        session_id: Optional[str] = None,
        comment: Optional[str] = None,
    ) -> ApiObject:
        """Scores one request or session of the account; the same name again replaces the value."""
        if (request_id is None) == (session_id is None):
            raise ValueError("give exactly one of request_id and session_id")
        if not isinstance(name, str) or not SCORE_NAME.match(name):
            raise ValueError("name must be 1-40 characters of lower-case letters, digits, '.', '-' and '_'")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1_000_000 <= value <= 1_000_000:
            raise ValueError("value must be a number from -1000000 to 1000000")
        body: Dict[str, Any] = {"name": name, "value": value}
        if request_id is not None:
            body["request_id"] = non_empty_str("request_id", request_id)
        if session_id is not None:
            body["session_id"] = non_empty_str("session_id", session_id)
        if comment is not None:
            body["comment"] = comment
        return self._call("POST", "/v1/scores", json=body)
