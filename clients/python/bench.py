"""What the client adds per call over a raw keep-alive http.client call to the same endpoint:
``GATEWAY_BASE_URL=… GATEWAY_API_KEY=… python3 bench.py [calls]``. Paired rounds, median of each."""
import http.client
import os
import statistics
import sys
import time
import urllib.parse

from gateway_client import Gateway

PATH = "/v1/videos?limit=1"


def raw_calls(base: str, key: str, n: int) -> float:
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    start = time.perf_counter()
    for _ in range(n):
        conn.request("GET", PATH, headers={"Authorization": f"Bearer {key}", "Accept": "application/json"})
        response = conn.getresponse()
        response.read()
    conn.close()
    return (time.perf_counter() - start) / n


def client_calls(gw: Gateway, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        gw.videos.list(limit=1)
    return (time.perf_counter() - start) / n


def main() -> None:
    base, key = os.environ["GATEWAY_BASE_URL"], os.environ["GATEWAY_API_KEY"]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with Gateway(key, base_url=base) as gw:
        client_calls(gw, 20)  # warm-up
        raw, lib = [], []
        for _ in range(7):
            raw.append(raw_calls(base, key, n))
            lib.append(client_calls(gw, n))
    r, c = statistics.median(raw) * 1000, statistics.median(lib) * 1000
    print(f"raw http.client {r:.3f} ms/call, gateway_client {c:.3f} ms/call, added {c - r:+.3f} ms/call ({n} calls x 7 paired rounds)")


if __name__ == "__main__":
    main()
