"""What the client decides before any request: origins, arguments, error mapping, SSE parsing."""
import unittest

from gateway_client import (
    AuthenticationError,
    Gateway,
    GatewayError,
    InsufficientFundsError,
    RateLimitError,
    UpstreamError,
)
from gateway_client._errors import error_from_answer
from gateway_client._sse import iter_events


class Origins(unittest.TestCase):
    def test_remote_http_is_refused_at_construction(self):
        for url in ("http://example.com", "http://10.0.0.1:8080", "ftp://127.0.0.1", "127.0.0.1:8080"):
            with self.subTest(url=url), self.assertRaises(ValueError):
                Gateway("sk-test", base_url=url)

    def test_loopback_http_and_remote_https_are_allowed(self):
        for url in ("http://127.0.0.1:8080", "http://localhost", "http://[::1]:9000", "https://gateway.example.com"):
            with self.subTest(url=url):
                self.assertIn(url.split("//")[1].split(":")[0].strip("[]"), repr(Gateway("sk-test", base_url=url)))

    def test_repr_never_shows_the_key(self):
        self.assertNotIn("sk-secret", repr(Gateway("sk-secret", base_url="http://127.0.0.1:1")))


class Arguments(unittest.TestCase):
    def setUp(self):
        # Port 9 on loopback: any request that escaped validation would fail with ConnectionError.
        self.gw = Gateway("sk-test", base_url="http://127.0.0.1:9", max_retries=0)

    def test_invalid_arguments_fail_before_any_request(self):
        cases = [
            lambda: self.gw.chat.completions.create(model="", messages=[{"role": "user", "content": "x"}]),
            lambda: self.gw.chat.completions.create(model="m", messages=[]),
            lambda: self.gw.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}], tags=["a,b"]),
            lambda: self.gw.videos.create(model="m", content=[]),
            lambda: self.gw.videos.create(model="m", content=[{"type": "text", "text": "x"}], idempotency_key="has space"),
            lambda: self.gw.videos.get("../keys"),
            lambda: self.gw.videos.wait("t1", timeout=0),
            lambda: self.gw.estimates.create(endpoint="audio", payload={}),
            lambda: self.gw.usage.report(group_by="week", start="2026-01-01", end="2026-01-02"),
            lambda: self.gw.scores.create(name="Bad Name", value=1, request_id="r"),
            lambda: self.gw.scores.create(name="ok", value=2_000_000, request_id="r"),
            lambda: self.gw.scores.create(name="ok", value=1),
            lambda: self.gw.scores.create(name="ok", value=1, request_id="r", session_id="s"),
            lambda: self.gw.private.get_result(client_request_id="x"),  # an sk- key
            lambda: self.gw.assets.upload(b"not an image"),
        ]
        for index, call in enumerate(cases):
            with self.subTest(case=index), self.assertRaises(ValueError):
                call()

    def test_missing_key_or_bad_retry_count(self):
        with self.assertRaises(ValueError):
            Gateway("", base_url="http://127.0.0.1:9")
        with self.assertRaises(ValueError):
            Gateway("sk-x", base_url="http://127.0.0.1:9", max_retries=-1)


class ErrorMapping(unittest.TestCase):
    def test_money_is_not_speed(self):
        self.assertIsInstance(error_from_answer(429, "quota_exceeded", "m", "r", None, None), InsufficientFundsError)
        self.assertIsInstance(error_from_answer(429, "rate_limit_exceeded", "m", "r", None, 2.0), RateLimitError)
        self.assertIsInstance(error_from_answer(401, "invalid_api_key", "m", "r", None, None), AuthenticationError)
        self.assertIsInstance(error_from_answer(502, None, "m", "r", None, None), UpstreamError)
        err = error_from_answer(418, "teapot", "m", "req-1", None, None)
        self.assertEqual((type(err), err.status, err.code, err.request_id), (GatewayError, 418, "teapot", "req-1"))


class Events(unittest.TestCase):
    def test_sse_framing(self):
        lines = [b": comment\n", b"event: delta\n", b"data: {\"a\":\n", b"data: 1}\n", b"\n", b"data: [DONE]\n", b"\n"]
        self.assertEqual(list(iter_events(iter(lines))), [("delta", '{"a":\n1}'), (None, "[DONE]")])


if __name__ == "__main__":
    unittest.main()
