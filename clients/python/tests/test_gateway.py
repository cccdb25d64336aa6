"""Every method against a running gateway. `npm test` starts one and sets GATEWAY_BASE_URL,
GATEWAY_API_KEY, GATEWAY_CHAT_MODEL and GATEWAY_VIDEO_MODEL (test/clients/python-client.test.ts)."""
import os
import struct
import time
import unittest
import urllib.request
import uuid
import zlib

from gateway_client import (
    AuthenticationError,
    Gateway,
    GatewayError,
    NotFoundError,
    RetryPolicy,
    StreamInterruptedError,
    UploadError,
    WaitTimeoutError,
)

from .fault_proxy import CUT, FaultProxy

ENV = ("GATEWAY_BASE_URL", "GATEWAY_API_KEY", "GATEWAY_PRIVATE_KEY", "GATEWAY_CHAT_MODEL", "GATEWAY_VIDEO_MODEL")


def setUpModule() -> None:
    missing = [name for name in ENV if not os.environ.get(name)]
    if missing:  # run through `npm test`, which starts the gateway these tests need
        raise RuntimeError(f"these tests need a running gateway: set {', '.join(missing)}")


def tiny_png(width: int, height: int) -> bytes:
    """A valid RGB PNG built with the standard library."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x20\x40\x60" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def user(text: str):
    return [{"role": "user", "content": text}]


class Gateway_(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.base = os.environ["GATEWAY_BASE_URL"]
        cls.key = os.environ["GATEWAY_API_KEY"]
        cls.chat_model = os.environ["GATEWAY_CHAT_MODEL"]
        cls.video_model = os.environ["GATEWAY_VIDEO_MODEL"]
        cls.gw = Gateway(cls.key, base_url=cls.base)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.gw.close()

    def video(self, text: str):
        return self.gw.videos.create(model=self.video_model, content=[{"type": "text", "text": text}], duration=5, resolution="720p")

    def test_private_protocol(self):
        with Gateway(os.environ["GATEWAY_PRIVATE_KEY"], base_url=self.base) as server:
            body = {"messages": user("hello"), "max_tokens": 3}
            first = server.private.call(client_request_id="py-1", model=self.chat_model, input=body)
            self.assertEqual(first["status"], "succeeded")
            self.assertEqual(first["result"]["object"], "chat.completion")
            self.assertTrue(first.request_id)
            again = server.private.call(client_request_id="py-1", model=self.chat_model, input=body)
            self.assertEqual(again["task_id"], first["task_id"])
            self.assertEqual(server.private.get_result(task_id=first["task_id"])["status"], "succeeded")
            self.assertEqual(server.private.get_result(client_request_id="py-1")["task_id"], first["task_id"])
            with server.private.call(client_request_id="py-2", model=self.chat_model, input=body, stream=True) as stream:
                text = "".join(c["choices"][0]["delta"].get("content") or "" for c in stream if c.get("choices"))
            self.assertEqual(text, "tok1 tok2 tok3 ")
            with self.assertRaises(NotFoundError):
                server.private.get_result(client_request_id="never-sent")

    def test_chat_plain(self):
        answer = self.gw.chat.completions.create(model=self.chat_model, messages=user("hello"), tags=["py-client"])
        self.assertEqual(answer["object"], "chat.completion")
        self.assertTrue(answer["choices"][0]["message"]["content"])
        self.assertTrue(answer.request_id)

    def test_chat_stream(self):
        with self.gw.chat.completions.create(model=self.chat_model, messages=user("stream please"), stream=True) as stream:
            chunks = list(stream)
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))
        self.assertTrue(text)
        self.assertTrue(stream.request_id)

    def test_interrupted_stream_raises_and_is_not_replayed(self):
        proxy = FaultProxy(self.base)
        try:
            gw = Gateway(self.key, base_url=proxy.url)
            with self.assertRaises(GatewayError) as caught:
                for _ in gw.chat.completions.create(model=self.chat_model, messages=user("[[sim:fault=disconnect]] cut"), stream=True):
                    pass
            self.assertIn(caught.exception.code, ("upstream_stream_interrupted", "stream_interrupted"))
            self.assertTrue(caught.exception.request_id)
            self.assertEqual(proxy.hits[("POST", "/v1/chat/completions")], 1)
        finally:
            proxy.close()

    def test_stream_cut_by_the_network_raises_and_is_not_replayed(self):
        proxy = FaultProxy(self.base)
        try:
            gw = Gateway(self.key, base_url=proxy.url)
            proxy.plan[("POST", "/v1/chat/completions")] = [CUT]
            received = []
            with self.assertRaises(GatewayError):
                for chunk in gw.chat.completions.create(model=self.chat_model, messages=user("a long answer"), stream=True, max_tokens=64):
                    received.append(chunk)
            self.assertTrue(received)  # it broke mid-way, after chunks had arrived
            self.assertEqual(proxy.hits[("POST", "/v1/chat/completions")], 1)
        finally:
            proxy.close()

    def test_video_lifecycle_and_idempotent_retry_by_hand(self):
        task = self.video("a cat surfing")
        self.assertTrue(task["id"])
        self.assertTrue(task.idempotency_key)
        again = self.gw.videos.create(model=self.video_model, content=[{"type": "text", "text": "a cat surfing"}], duration=5, resolution="720p", idempotency_key=task.idempotency_key)
        self.assertEqual(again["id"], task["id"])
        done = self.gw.videos.wait(task["id"], timeout=60, interval=0.2)
        self.assertEqual(done["status"], "succeeded")
        self.assertTrue(done.get("stored_url") or done.get("provider_url"))
        self.assertIn(task["id"], [t["id"] for t in self.gw.videos.list(limit=100)["data"]])

    def test_wait_timeout_raises_and_never_cancels(self):
        task = self.gw.videos.create(model=self.video_model, content=[{"type": "text", "text": "[[sim:taskRunMs=3000]] slow"}], duration=5, resolution="720p")
        with self.assertRaises(WaitTimeoutError) as caught:
            self.gw.videos.wait(task["id"], timeout=0.3, interval=0.1)
        self.assertNotEqual(caught.exception.task["status"], "cancelled")
        self.assertNotEqual(self.gw.videos.get(task["id"])["status"], "cancelled")
        cancelled = self.gw.videos.cancel(task["id"])
        self.assertEqual(cancelled["status"], "cancelled")

    def test_estimate_and_key_usage(self):
        quote = self.gw.estimates.create(endpoint="chat/completions", payload={"model": self.chat_model, "messages": user("price me"), "max_tokens": 10})
        self.assertIsInstance(quote["estimated_micro_usd"], int)
        self.assertFalse(quote["is_free"])
        usage = self.gw.key_usage.get()
        self.assertEqual(usage["key"]["last4"], self.key[-4:])
        self.assertEqual(len(usage["recent"]) <= 20, True)

    def test_usage_report_logs_and_scores(self):
        self.gw.chat.completions.create(model=self.chat_model, messages=user("to be scored"), request_id="py-client-scored", session_id="py-session")
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 60))
        deadline = time.monotonic() + 5
        while True:  # usage records land within about a second of a call
            try:
                score = self.gw.scores.create(request_id="py-client-scored", name="helpful", value=0.5, comment="fine")
                break
            except NotFoundError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.assertEqual((score["object"], score["name"], score["value"]), ("score", "helpful", 0.5))
        report = self.gw.usage.report(group_by="model", start=start, end=end)
        self.assertGreaterEqual(report["total"]["requests"], 1)
        csv = self.gw.usage.report(group_by="day", start=start, end=end, format="csv")
        self.assertTrue(csv.startswith("group,requests,errors,"))
        logs = self.gw.usage.logs(session_id="py-session")
        self.assertEqual([r["request_id"] for r in logs["data"]], ["py-client-scored"])

    def test_asset_upload_read_link_delete_and_resume(self):
        png = tiny_png(8, 8)
        asset = self.gw.assets.upload(png, filename="tiny.png")
        self.assertEqual((asset["width"], asset["height"], asset["reference"]), (8, 8, f"asset://{asset['id']}"))
        self.assertEqual(self.gw.assets.get(asset["id"])["id"], asset["id"])
        self.assertIn(asset["id"], [a["id"] for a in self.gw.assets.list()["data"]])
        link = self.gw.assets.download_url(asset["id"])
        with urllib.request.urlopen(link["url"]) as response:
            self.assertEqual(response.read(), png)
        self.gw.assets.delete(asset["id"])
        with self.assertRaises(NotFoundError):
            self.gw.assets.get(asset["id"])
        proxy = FaultProxy(self.base)
        try:
            gw = Gateway(self.key, base_url=proxy.url)
            proxy.plan[("POST", "/v1/assets/uploads/*")] = [503]
            with self.assertRaises(UploadError) as caught:
                gw.assets.upload(png)
            self.assertEqual((caught.exception.stage, caught.exception.status), ("complete", 503))
            self.assertTrue(caught.exception.upload_id.startswith("up_"))
            resumed = gw.assets.resume_upload(caught.exception)
            self.assertTrue(resumed["reference"].startswith("asset://asset_"))
        finally:
            proxy.close()

    def test_error_fields(self):
        with self.assertRaises(NotFoundError) as caught:
            self.gw.videos.get("task_does_not_exist")
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.code, "not_found")
        self.assertTrue(caught.exception.request_id)
        with Gateway("sk-" + "x" * 48, base_url=self.base) as stranger, self.assertRaises(AuthenticationError) as auth:
            stranger.key_usage.get()
        self.assertEqual((auth.exception.status, auth.exception.code), (401, "invalid_api_key"))

    def test_get_retried_post_not_redirect_refused(self):
        proxy = FaultProxy(self.base)
        try:
            gw = Gateway(self.key, base_url=proxy.url, retry=RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.05))
            proxy.plan[("GET", "/v1/key/usage")] = [503, 503]
            self.assertIn("quota", gw.key_usage.get())
            self.assertEqual(proxy.hits[("GET", "/v1/key/usage")], 3)

            proxy.plan[("POST", "/v1/videos")] = [503]
            with self.assertRaises(GatewayError) as caught:
                gw.videos.create(model=self.video_model, content=[{"type": "text", "text": "x"}])
            self.assertEqual((caught.exception.status, proxy.hits[("POST", "/v1/videos")]), (503, 1))

            proxy.plan[("GET", "/v1/models")] = [302]
            with self.assertRaises(GatewayError) as redirect:
                gw._transport.request("GET", "/v1/models", headers=gw._auth_headers())
            self.assertEqual((redirect.exception.status, redirect.exception.code), (302, "redirect_refused"))

            off = Gateway(self.key, base_url=proxy.url, max_retries=0)
            proxy.plan[("GET", "/v1/key/usage")] = [503]
            with self.assertRaises(GatewayError):
                off.key_usage.get()
        finally:
            proxy.close()

    def test_non_json_answer_raises_with_status_and_request_id(self):
        with self.assertRaises(GatewayError) as caught:
            self.gw._transport.request("GET", "/usage-lookup").json()
        self.assertEqual(caught.exception.code, "invalid_response")
        self.assertEqual(caught.exception.status, 200)
        self.assertTrue(caught.exception.request_id)


if __name__ == "__main__":
    unittest.main()
