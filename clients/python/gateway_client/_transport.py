"""HTTP for the client: standard library only, keep-alive connections, retries for GET only,
redirects refused, HTTPS required except on loopback."""
from __future__ import annotations

import http.client
import json as jsonlib
import random
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field
from email.message import Message
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from ._errors import ConnectionError, GatewayError, error_from_answer
from ._version import __version__

LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}
# Answers worth retrying for a GET; a 429 that is about money (quota) is not among them.
RETRY_STATUSES = {408, 429, 500, 502, 503, 504}
USER_AGENT = f"gateway-client-python/{__version__}"
IDLE_SECONDS = 4.0


def check_origin(url: str, what: str = "base_url") -> urllib.parse.SplitResult:
    """A remote origin must use HTTPS; plain HTTP is only for localhost, 127.0.0.1 and ::1."""
    if not isinstance(url, str) or not url:
        raise ValueError(f"{what} must be a non-empty URL string")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what} must be an http(s) URL, got {url!r}")
    if parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
        raise ValueError(f"{what} must use https (plain http only for localhost, 127.0.0.1 and ::1): {url!r}")
    return parts


@dataclass
class RetryPolicy:
    """Automatic retries, for GET only: exponential backoff with full jitter, ``Retry-After`` honoured."""

    max_retries: int = 2
    initial_delay: float = 0.5  # seconds
    max_delay: float = 8.0  # seconds, also the cap on an honoured Retry-After

    def delay(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        return random.uniform(0, min(self.max_delay, self.initial_delay * (2**attempt)))


@dataclass
class Answer:
    status: int
    headers: Message
    body: bytes
    request_id: Optional[str] = None
    _json: Any = field(default=None, repr=False)

    def json(self) -> Any:
        if self._json is None:
            try:
                self._json = jsonlib.loads(self.body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                raise GatewayError(
                    f"the gateway answered {self.status} with a body that is not JSON ({err})",
                    status=self.status, code="invalid_response", request_id=self.request_id,
                ) from None
        return self._json


def _retry_after(headers: Message) -> Optional[float]:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def raise_for_answer(status: int, headers: Message, body: bytes, request_id: Optional[str]) -> None:
    """Turns an error answer of any of the gateway's protocols into the client's error."""
    if 300 <= status < 400:
        raise GatewayError(
            f"the gateway answered a redirect ({status} to {headers.get('location')!r}); redirects are refused",
            status=status, code="redirect_refused", request_id=request_id,
        )
    if status < 400:
        return
    parsed: Any = None
    code: Optional[str] = None
    message = f"HTTP {status}"
    try:
        parsed = jsonlib.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        parsed = None
        if body:
            message = f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}"
    if isinstance(parsed, dict):
        err = parsed.get("error")
        if isinstance(err, dict):
            message = str(err.get("message") or message)
            raw = err.get("code")
            if isinstance(raw, str):
                code = raw
            else:  # the generative-content shape: numeric code, our code as the ErrorInfo reason
                for detail in err.get("details") or []:
                    if isinstance(detail, dict) and isinstance(detail.get("reason"), str):
                        code = detail["reason"].lower()
                code = code or (err.get("type") if isinstance(err.get("type"), str) else None)
        else:
            message = str(parsed.get("message") or message)
            code = parsed.get("error_code") if isinstance(parsed.get("error_code"), str) else None
        request_id = request_id or (parsed.get("request_id") if isinstance(parsed.get("request_id"), str) else None)
    raise error_from_answer(status, code, message, request_id, parsed, _retry_after(headers))


class Transport:
    def __init__(self, base_url: str, *, timeout: float, retry: RetryPolicy, default_headers: Mapping[str, str]) -> None:
        self.origin = check_origin(base_url)
        self.base_path = self.origin.path.rstrip("/")
        self.timeout = timeout
        self.retry = retry
        self.default_headers = {"User-Agent": USER_AGENT, **default_headers}
        self._idle: List[Tuple[float, http.client.HTTPConnection]] = []
        self._ssl = ssl.create_default_context()

    # -- connections -------------------------------------------------------------------------
    def _connect(self, parts: urllib.parse.SplitResult) -> http.client.HTTPConnection:
        host, port = parts.hostname or "", parts.port
        if parts.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self._ssl)
        return http.client.HTTPConnection(host, port, timeout=self.timeout)

    def close(self) -> None:
        while self._idle:
            self._idle.pop()[1].close()

    # -- requests ----------------------------------------------------------------------------
    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        target = self.base_path + path
        if query:
            pairs = [(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None]
            if pairs:
                target += "?" + urllib.parse.urlencode(pairs)
        return target

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        query: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Answer:
        """One call; a GET is retried on connection failures and on 408/429/5xx, nothing else is."""
        body = None if json is None else jsonlib.dumps(json, separators=(",", ":")).encode("utf-8")
        all_headers = {**self.default_headers, "Accept": "application/json", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        target = self.url(path, query)
        retries = self.retry.max_retries if method == "GET" else 0
        attempt = 0
        while True:
            try:
                answer = self._exchange(method, target, body, all_headers)
            except GatewayError:
                if attempt >= retries:
                    raise
                time.sleep(self.retry.delay(attempt, None))
                attempt += 1
                continue
            if answer.status in RETRY_STATUSES and attempt < retries and not _about_money(answer):
                time.sleep(self.retry.delay(attempt, _retry_after(answer.headers)))
                attempt += 1
                continue
            raise_for_answer(answer.status, answer.headers, answer.body, answer.request_id)
            return answer

    def _exchange(self, method: str, target: str, body: Optional[bytes], headers: Mapping[str, str]) -> Answer:
        conn = self._take_idle()
        reused = conn is not None
        if conn is None:
            conn = self._connect(self.origin)
        try:
            conn.request(method, target, body=body, headers=dict(headers))
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as err:
            conn.close()
            # A kept-alive connection the server had just closed: only a GET is tried again on a
            # fresh one (a POST may have reached the server, and a paid call is never replayed).
            if reused and method == "GET" and isinstance(err, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
                return self._exchange(method, target, body, headers)
            raise ConnectionError(f"connection to the gateway failed: {err}") from None
        if response.will_close:
            conn.close()
        else:
            self._idle.append((time.monotonic(), conn))
        return Answer(response.status, response.headers, data, response.headers.get("x-request-id"))

    def _take_idle(self) -> Optional[http.client.HTTPConnection]:
        # Servers close idle connections after a few seconds (Node: 5 s); one idle longer than
        # IDLE_SECONDS is closed here rather than risk a POST on a connection already closing.
        while self._idle:
            since, conn = self._idle.pop()
            if time.monotonic() - since < IDLE_SECONDS:
                return conn
            conn.close()
        return None

    def stream(self, method: str, path: str, *, json: Any, headers: Optional[Mapping[str, str]] = None) -> Tuple[http.client.HTTPResponse, http.client.HTTPConnection]:
        """Opens a streamed answer on a connection of its own; never retried (the call may be paid)."""
        body = jsonlib.dumps(json, separators=(",", ":")).encode("utf-8")
        all_headers = {**self.default_headers, "Accept": "text/event-stream", "Content-Type": "application/json", **(headers or {})}
        conn = self._connect(self.origin)
        try:
            conn.request(method, self.url(path), body=body, headers=all_headers)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as err:
            conn.close()
            raise ConnectionError(f"connection to the gateway failed: {err}") from None
        request_id = response.headers.get("x-request-id")
        if response.status >= 300:
            data = response.read()
            conn.close()
            raise_for_answer(response.status, response.headers, data, request_id)
        return response, conn

    def put_bytes(self, url: str, data: bytes, headers: Mapping[str, str]) -> Answer:
        """The storage PUT of an upload: only the headers the reservation names, never the API key."""
        parts = check_origin(url, "upload_url")
        conn = self._connect(parts)
        target = parts.path + ("?" + parts.query if parts.query else "")
        try:
            conn.request("PUT", target, body=data, headers={**dict(headers), "Content-Length": str(len(data))})
            response = conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as err:
            raise ConnectionError(f"the upload to storage failed: {err}") from None
        finally:
            conn.close()
        request_id = response.headers.get("x-request-id")
        if response.status >= 300:
            raise_for_answer(response.status, response.headers, body, request_id)
        return Answer(response.status, response.headers, body, request_id)


def _about_money(answer: Answer) -> bool:
    if answer.status != 429:
        return False
    try:
        err = answer.json().get("error")
    except (GatewayError, AttributeError):
        return False
    return isinstance(err, dict) and err.get("code") in ("quota_exceeded", "insufficient_balance")


def iter_lines(response: http.client.HTTPResponse) -> Iterator[bytes]:
    while True:
        try:
            line = response.readline()
        except (OSError, http.client.HTTPException, socket.timeout) as err:
            raise ConnectionError(f"the stream broke: {err}") from None
        if not line:
            return
        yield line


Headers = Dict[str, str]
