"""Python client for the model gateway (synchronous, standard library only)."""
from ._client import Gateway
from ._errors import (
    AuthenticationError,
    ConnectionError,
    GatewayError,
    InsufficientFundsError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    StreamInterruptedError,
    UploadError,
    UpstreamError,
    WaitTimeoutError,
)
from ._transport import RetryPolicy
from ._types import ApiObject, CreatedVideo
from ._version import __version__
from .resources.assets import reference
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "ApiObject", "AuthenticationError", "ConnectionError", "CreatedVideo", "Gateway", "GatewayError",
    "InsufficientFundsError", "NotFoundError", "PermissionDeniedError", "RateLimitError", "RetryPolicy",
    "StreamInterruptedError", "UploadError", "UpstreamError", "WaitTimeoutError", "WebhookVerificationError",
    "__version__", "reference", "verify_webhook",
]
