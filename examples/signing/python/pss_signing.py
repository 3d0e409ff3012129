#!/usr/bin/env python3
"""Signing recipe for the Partner Swap Service in Python 3, standard library only.

Signs partner requests (protocol PSS1-HMAC-SHA256, README "Signed requests") and verifies webhook
deliveries (Standard Webhooks, README "Webhooks"). Copy sign_request() and verify_webhook() into your code.

  python3 pss_signing.py vector <path-to-signing-vector.json>
      recompute the published worked example (and its webhook delivery); exit 0 only if all match
  python3 pss_signing.py call <baseUrl> <keyId> <secret> <audience> [user]
      send a signed GET <baseUrl>/partner/markup (baseUrl with the API prefix, e.g.
      http://localhost:8080/api/v1; audience is the service's PUBLIC_ORIGIN); exit 0 only on 200
"""
import base64
import hashlib
import hmac
import json
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SCHEME = "PSS1-HMAC-SHA256"
WEBHOOK_TOLERANCE_SECONDS = 300


def canonical_text(audience, method, path_and_query, timestamp, nonce, key_id, user, body):
    """The nine lines joined by LF, no trailing newline. body: the raw bytes sent (b"" when none)."""
    return "\n".join(
        [
            SCHEME,
            audience,
            method.upper(),
            path_and_query,
            timestamp,
            nonce,
            key_id,
            user,
            hashlib.sha256(body).hexdigest(),
        ]
    )


def sign_request(secret, key_id, user, audience, method, path_and_query, body=b"", timestamp=None, nonce=None):
    """The five x-service-* headers for a request. path_and_query exactly as sent, with /api/v1."""
    timestamp = timestamp if timestamp is not None else str(int(time.time()))
    nonce = nonce if nonce is not None else secrets.token_urlsafe(16)  # 22 chars of [A-Za-z0-9_-]
    text = canonical_text(audience, method, path_and_query, timestamp, nonce, key_id, user, body)
    signature = hmac.new(secret.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()
    return {
        "x-service-key-id": key_id,
        "x-service-user": user,
        "x-service-timestamp": timestamp,
        "x-service-nonce": nonce,
        "x-service-signature": "v1=" + signature,
    }


def verify_webhook(secret, webhook_id, webhook_timestamp, webhook_signature, raw_body, now=None):
    """True when one v1 signature of the (space-separated) header matches and the timestamp is within 5 min.

    secret: the whsec_ secret; raw_body: the request body bytes exactly as received (not re-serialized JSON).
    """
    if not secret.startswith("whsec_") or not webhook_timestamp.isdigit():
        return False
    key = base64.b64decode(secret[len("whsec_") :])
    signed = webhook_id.encode("utf-8") + b"." + webhook_timestamp.encode("ascii") + b"." + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    offered = [entry[len("v1,") :].encode("utf-8") for entry in webhook_signature.split(" ") if entry.startswith("v1,")]
    matches = any(hmac.compare_digest(candidate, expected) for candidate in offered)
    now = int(time.time()) if now is None else now
    return matches and abs(now - int(webhook_timestamp)) <= WEBHOOK_TOLERANCE_SECONDS


def run_vector(path):
    with open(path, encoding="utf-8") as file:
        v = json.load(file)
    ok = True
    body = v["body"].encode("utf-8")
    text = canonical_text(v["audience"], v["method"], v["pathAndQuery"], v["timestamp"], v["nonce"], v["keyId"], v["user"], body)
    headers = sign_request(
        v["secret"], v["keyId"], v["user"], v["audience"], v["method"], v["pathAndQuery"], body, v["timestamp"], v["nonce"]
    )
    ok &= report("canonical text", text == v["canonicalText"])
    ok &= report("request signature " + headers["x-service-signature"], headers["x-service-signature"] == v["signatureHeader"])
    if "webhookSignature" in v:
        ts, raw = v["webhookTimestamp"], v["webhookBody"].encode("utf-8")
        args = (v["webhookSecret"], v["webhookId"], ts)
        ok &= report("webhook signature verifies", verify_webhook(*args, v["webhookSignature"], raw, now=int(ts)))
        ok &= report("webhook with another body is refused", not verify_webhook(*args, v["webhookSignature"], raw + b" ", now=int(ts)))
        ok &= report("webhook too old is refused", not verify_webhook(*args, v["webhookSignature"], raw, now=int(ts) + 301))
    else:
        print("no webhook vector in this file")
    return 0 if ok else 1


def report(what, passed):
    print(("ok      " if passed else "MISMATCH") + " " + what)
    return passed


def run_call(base_url, key_id, secret, audience, user="customer-1"):
    url = base_url.rstrip("/") + "/partner/markup"
    parts = urllib.parse.urlsplit(url)
    path_and_query = parts.path + ("?" + parts.query if parts.query else "")
    headers = sign_request(secret, key_id, user, audience, "GET", path_and_query)
    request = urllib.request.Request(url, method="GET", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    print(f"GET {path_and_query} -> {status}")
    print(body.decode("utf-8", "replace"))
    return 0 if status == 200 else 1


def main(argv):
    if len(argv) == 2 and argv[0] == "vector":
        return run_vector(argv[1])
    if len(argv) in (5, 6) and argv[0] == "call":
        return run_call(*argv[1:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
