from __future__ import annotations

import hashlib
import os
from typing import Any, Optional, Union

from .._errors import GatewayError, UploadError
from .._types import ApiObject
from .._validate import id_segment, non_empty_str
from ._base import Resource

Source = Union[str, "os.PathLike[str]", bytes, bytearray]

_MAGIC = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"))


def _sniff(data: bytes) -> Optional[str]:
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _read(source: Source, filename: Optional[str]) -> "tuple[bytes, str]":
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), filename or "upload"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            return handle.read(), filename or os.path.basename(path)
    raise ValueError("source must be a file path or bytes")


class Assets(Resource):
    def upload(self, source: Source, *, filename: Optional[str] = None, content_type: Optional[str] = None) -> ApiObject:
        """Reserve → PUT the bytes to the short-lived storage URL (without the API key) → complete.
        Uploading starts no generation. A failure raises ``UploadError`` with its ``stage``;
        ``resume_upload(error)`` carries on from there."""
        data, name = _read(source, filename)
        kind = content_type or _sniff(data)
        if kind is None:
            raise ValueError("content_type could not be detected (JPEG, PNG or WebP): pass content_type")
        try:
            reservation = self._call("POST", "/v1/assets", json={
                "filename": name, "content_type": kind, "size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            })
        except GatewayError as err:
            raise UploadError(err, stage="reserve") from None
        return self._put_and_complete(reservation, data)

    def _put_and_complete(self, reservation: Any, data: bytes) -> ApiObject:
        upload_id = str(reservation["upload_id"])
        if str(reservation.get("method", "PUT")).upper() != "PUT":
            raise UploadError(GatewayError(f"unexpected upload method {reservation.get('method')!r}", code="invalid_response"), stage="put", upload_id=upload_id)
        try:
            self._client._transport.put_bytes(str(reservation["upload_url"]), data, dict(reservation.get("headers") or {}))
        except (GatewayError, ValueError) as err:
            cause = err if isinstance(err, GatewayError) else GatewayError(str(err), code="invalid_upload_url")
            failure = UploadError(cause, stage="put", upload_id=upload_id)
            failure._source = (reservation, data)
            raise failure from None
        return self.complete(upload_id)

    def complete(self, upload_id: str) -> ApiObject:
        """Confirms an upload; idempotent, so calling it again after a failure is safe."""
        try:
            return self._call("POST", f"/v1/assets/uploads/{id_segment('upload_id', upload_id)}/complete")
        except GatewayError as err:
            asset_id = err.body.get("asset_id") if isinstance(err.body, dict) else None
            raise UploadError(err, stage="complete", upload_id=upload_id, asset_id=asset_id) from None

    def resume_upload(self, error: UploadError) -> ApiObject:
        """Carries a failed upload on: the PUT again (while its URL is valid), or the confirmation."""
        if not isinstance(error, UploadError):
            raise ValueError("resume_upload takes the UploadError an upload raised")
        if error.stage == "complete" and error.upload_id:
            return self.complete(error.upload_id)
        if error.stage == "put" and error._source is not None:
            reservation, data = error._source
            return self._put_and_complete(reservation, data)
        raise ValueError("this upload failed before it was reserved: upload again")

    def get(self, asset_id: str) -> ApiObject:
        return self._call("GET", f"/v1/assets/{id_segment('asset_id', asset_id)}")

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> ApiObject:
        return self._call("GET", "/v1/assets", query={"limit": limit, "cursor": cursor})

    def download_url(self, asset_id: str) -> ApiObject:
        """``{url, expires_at}``: short-lived and owner-scoped — use it now; never store or share it."""
        return self._call("GET", f"/v1/assets/{id_segment('asset_id', asset_id)}/content")

    def delete(self, asset_id: str) -> None:
        self._call("DELETE", f"/v1/assets/{id_segment('asset_id', asset_id)}")


def reference(asset: Any) -> str:
    """The ``asset://<id>`` form of an asset (or its id) for use inside requests."""
    if isinstance(asset, dict):
        return str(asset.get("reference") or f"asset://{asset['id']}")
    return f"asset://{non_empty_str('asset', asset)}"
