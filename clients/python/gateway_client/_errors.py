"""One error class for every failure the client reports, with subclasses for the common cases."""
from __future__ import annotations

from typing import Any, Optional


class GatewayError(Exception):
    """A failed call: ``status`` (None when no answer arrived), ``code`` and ``request_id``."""

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        request_id: Optional[str] = None,
        body: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.body = body
        self.retry_after = retry_after

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.code:
            parts.append(f"code={self.code}")
        if self.request_id:
            parts.append(f"request_id={self.request_id}")
        return " ".join(parts)


class AuthenticationError(GatewayError):
    """401: the key is missing, unknown, revoked or expired."""


class PermissionDeniedError(GatewayError):
    """403: the key is disabled, or not allowed this model, address or asset."""


class NotFoundError(GatewayError):
    """404 (or the private protocol's code -1): nothing of this id is visible to the key."""


class RateLimitError(GatewayError):
    """429 from a rate limit; ``retry_after`` is the server's suggested wait in seconds."""


class InsufficientFundsError(GatewayError):
    """402 ``insufficient_balance`` or 429 ``quota_exceeded``: money, not speed, is short."""


class UpstreamError(GatewayError):
    """The model provider failed, timed out or rate-limited every route (502, 504, ``upstream_*``)."""


class ConnectionError(GatewayError):  # noqa: A001 - the client's own name, shadowing on purpose
    """No answer arrived (refused, reset, timed out)."""


class StreamInterruptedError(GatewayError):
    """A stream ended without its end marker. Never replayed automatically: the call may be paid."""


class WaitTimeoutError(GatewayError):
    """``videos.wait`` ran out of time. The task goes on: query it again with the same id."""

    def __init__(self, message: str, *, task: Any = None) -> None:
        super().__init__(message, code="wait_timeout")
        self.task = task


class UploadError(GatewayError):
    """An upload failed at ``stage`` (``reserve``, ``put`` or ``complete``); resumable with
    ``assets.resume_upload(error)`` once reserved."""

    def __init__(
        self,
        cause: GatewayError,
        *,
        stage: str,
        upload_id: Optional[str] = None,
        asset_id: Optional[str] = None,
    ) -> None:
        super().__init__(
            f"upload failed at {stage}: {cause.message}",
            status=cause.status,
            code=cause.code,
            request_id=cause.request_id,
            body=cause.body,
            retry_after=cause.retry_after,
        )
        self.stage = stage
        self.upload_id = upload_id
        self.asset_id = asset_id
        self.cause = cause
        self._source: Any = None  # what to PUT again when the PUT stage failed


_FUNDS_CODES = {"insufficient_balance", "quota_exceeded", "budget_exceeded"}


def error_from_answer(status: int, code: Optional[str], message: str, request_id: Optional[str], body: Any, retry_after: Optional[float]) -> GatewayError:
    """The subclass that fits an error answer: by code first (a quota 429 is not a rate limit)."""
    kwargs = dict(status=status, code=code, request_id=request_id, body=body, retry_after=retry_after)
    if code in _FUNDS_CODES or status == 402:
        return InsufficientFundsError(message, **kwargs)
    if code and code.startswith("upstream_") or status in (502, 504):
        return UpstreamError(message, **kwargs)
    cls = {401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError, 429: RateLimitError}.get(status, GatewayError)
    return cls(message, **kwargs)
