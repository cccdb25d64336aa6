"""verify_webhook against the Standard Webhooks reference vector and the ways a delivery can be wrong."""
import unittest

from gateway_client import GatewayError, WebhookVerificationError, verify_webhook

# The reference example of Standard Webhooks (the signature its own libraries produce).
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
BODY = b'{"test": 2432232314}'
SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
OTHER_SECRET = "whsec_" + "A" * 32


def headers(signature=SIGNATURE, **overrides):
    base = {"webhook-id": MSG_ID, "webhook-timestamp": str(TIMESTAMP), "webhook-signature": signature}
    base.update(overrides)
    return base


class VerifyWebhook(unittest.TestCase):
    def test_the_reference_vector_verifies_and_returns_the_parsed_body(self):
        self.assertEqual(verify_webhook(BODY, headers(), SECRET, now=TIMESTAMP), {"test": 2432232314})
        self.assertEqual(verify_webhook(BODY.decode(), headers(), SECRET, now=TIMESTAMP + 299), {"test": 2432232314})

    def test_header_names_in_any_case(self):
        upper = {k.title(): v for k, v in headers().items()}
        self.assertEqual(verify_webhook(BODY, upper, SECRET, now=TIMESTAMP)["test"], 2432232314)

    def test_any_of_several_signatures_may_match(self):
        rotated = "v1,bm90IHRoZSBvbmU= " + SIGNATURE
        self.assertEqual(verify_webhook(BODY, headers(rotated), SECRET, now=TIMESTAMP)["test"], 2432232314)

    def test_refusals(self):
        cases = {
            "wrong secret": (BODY, headers(), OTHER_SECRET, TIMESTAMP),
            "tampered body": (b'{"test": 2432232315}', headers(), SECRET, TIMESTAMP),
            "other id": (BODY, headers(**{"webhook-id": "msg_other"}), SECRET, TIMESTAMP),
            "unknown version": (BODY, headers("v2," + SIGNATURE[3:]), SECRET, TIMESTAMP),
            "not base64": (BODY, headers("v1,***"), SECRET, TIMESTAMP),
            "too old": (BODY, headers(), SECRET, TIMESTAMP + 301),
            "too new": (BODY, headers(), SECRET, TIMESTAMP - 301),
            "no signature": (BODY, {"webhook-id": MSG_ID, "webhook-timestamp": str(TIMESTAMP)}, SECRET, TIMESTAMP),
            "bad timestamp": (BODY, headers(**{"webhook-timestamp": "soon"}), SECRET, TIMESTAMP),
        }
        for name, (body, hdrs, secret, now) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(body, hdrs, secret, now=now)
            self.assertIsInstance(caught.exception, GatewayError)
            self.assertEqual(caught.exception.code, "webhook_verification_failed")

    def test_a_malformed_secret_is_a_type_error(self):
        for secret in ("", "whsec_not base64!"):
            with self.subTest(secret), self.assertRaises(TypeError):
                verify_webhook(BODY, headers(), secret, now=TIMESTAMP)


if __name__ == "__main__":
    unittest.main()
