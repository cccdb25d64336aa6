"""Verifies webhook deliveries as Standard Webhooks defines them (standard library only)."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Union

from ._errors import GatewayError

DEFAULT_TOLERANCE_SECONDS = 5 * 60
_TIMESTAMP = re.compile(r"^\d{1,15}$")


class WebhookVerificationError(GatewayError):
    """The delivery is not authentic, or too old or too new: answer it 4xx and do not act on it."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="webhook_verification_failed")


def verify_webhook(
    body: Union[bytes, bytearray, str],
    headers: Mapping[str, Any],
    secret: str,
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> dict:
    """Returns the event of a verified delivery, or raises ``WebhookVerificationError``.

    ``body`` is the raw request body exactly as received (parse it only after this); ``headers``
    any mapping of header names (any case: a dict, ``http.client.HTTPMessage``, a framework's
    headers); ``secret`` the endpoint's ``whsec_…`` secret. Any of the signatures in
    ``webhook-signature`` may match (two during a secret rotation); comparisons take constant time,
    and a ``webhook-timestamp`` more than ``tolerance_seconds`` from now is refused (replays).
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    if not _TIMESTAMP.match(timestamp):
        raise WebhookVerificationError("webhook-timestamp is not Unix seconds")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError(f"webhook-timestamp is more than {tolerance_seconds} s from now")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = hmac.new(_secret_key(secret), f"{msg_id}.{timestamp}.".encode() + raw, hashlib.sha256).digest()
    if not any(_matches(entry, expected) for entry in signatures.split(" ")):
        raise WebhookVerificationError("no signature in webhook-signature matches")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise WebhookVerificationError("the body is not JSON") from err


def _matches(entry: str, expected: bytes) -> bool:
    version, _, signature = entry.partition(",")
    if version != "v1" or not signature:
        return False
    try:
        given = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return False
    return hmac.compare_digest(given, expected)


def _secret_key(secret: str) -> bytes:
    if not isinstance(secret, str) or not secret:
        raise TypeError("secret: the endpoint secret (whsec_…)")
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as err:
        raise TypeError("secret: not a whsec_ secret (base64 after the prefix)") from err


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    value = headers.get(name)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return None if value is None else str(value)
