from __future__ import annotations

import time
import uuid
from typing import Any, Dict, List, Optional

from .._errors import WaitTimeoutError
from .._types import ApiObject, CreatedVideo
from .._validate import id_segment, idempotency_key as check_key, non_empty_str, positive_number
from ._base import Resource

TERMINAL = {"succeeded", "failed", "cancelled", "expired"}


class Videos(Resource):
    def create(
        self,
        *,
        model: str,
        content: List[Dict[str, Any]],
        duration: Optional[float] = None,
        resolution: Optional[str] = None,
        generate_audio: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
        **extra: Any,
    ) -> CreatedVideo:
        """``POST /v1/videos``, paid and never retried automatically. The ``Idempotency-Key`` is
        generated when not given and returned as ``idempotency_key``: calling again with it
        returns the same task and charges nothing."""
        non_empty_str("model", model)
        if not isinstance(content, list) or not content:
            raise ValueError("content must be a non-empty list of parts")
        key = check_key("idempotency_key", idempotency_key) if idempotency_key is not None else f"gwc-{uuid.uuid4()}"
        body: Dict[str, Any] = {"model": model, "content": content, **extra}
        for name, value in (("duration", duration), ("resolution", resolution), ("generate_audio", generate_audio)):
            if value is not None:
                body[name] = value
        task = self._call("POST", "/v1/videos", json=body, headers={"Idempotency-Key": key})
        return CreatedVideo(task, task.request_id, key)

    def get(self, task_id: str) -> ApiObject:
        return self._call("GET", f"/v1/videos/{id_segment('task_id', task_id)}")

    def list(self, *, limit: Optional[int] = None, after: Optional[str] = None) -> ApiObject:
        return self._call("GET", "/v1/videos", query={"limit": limit, "after": after})

    def cancel(self, task_id: str) -> ApiObject:
        return self._call("POST", f"/v1/videos/{id_segment('task_id', task_id)}/cancel")

    def wait(self, task_id: str, *, timeout: float = 900.0, interval: float = 5.0) -> ApiObject:
        """Polls until the task ends. Running out of ``timeout`` raises ``WaitTimeoutError`` and
        cancels nothing: the task goes on and can be queried again by its id."""
        positive_number("timeout", timeout)
        positive_number("interval", interval)
        deadline = time.monotonic() + timeout
        while True:
            task = self.get(task_id)
            if task.get("status") in TERMINAL:
                return task
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeoutError(f"task {task_id} still {task.get('status')} after {timeout} s (not cancelled)", task=task)
            time.sleep(min(interval, left))
