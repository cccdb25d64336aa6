"""A loopback proxy in front of the real gateway that answers planned faults first (503s, a
redirect) and forwards everything else, counting what reached it."""
from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import DefaultDict, List, Tuple


CUT = 0  # a planned "status" that forwards half of the real answer and drops the connection


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = urllib.parse.urlsplit(upstream)
        self.plan: DefaultDict[Tuple[str, str], List[int]] = defaultdict(list)
        self.hits: Counter = Counter()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _any(self) -> None:
                path = self.path.split("?")[0]
                proxy.hits[(self.command, path)] += 1
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                # A planned path ending in '*' matches every path it begins (ids made by the gateway).
                prefixed = next((k for k in list(proxy.plan) if k[0] == self.command and k[1].endswith("*") and path.startswith(k[1][:-1])), None)
                planned = proxy.plan[(self.command, path)] if (self.command, path) in proxy.plan or prefixed is None else proxy.plan[prefixed]
                cut = bool(planned) and planned[0] == CUT
                if planned and not cut:
                    status = planned.pop(0)
                    payload = json.dumps({"error": {"message": "planned fault", "type": "server_error", "param": None, "code": "service_unavailable"}}).encode()
                    self.send_response(status)
                    if 300 <= status < 400:
                        self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                    self.send_header("Content-Type", "application/json")
                    self.send_header("X-Request-Id", f"fault-{proxy.hits[(self.command, path)]}")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                conn = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(self.command, self.path, body=body or None, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                conn.close()
                if cut:  # half the answer in one chunk, then the connection drops
                    planned.pop(0)
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.getheader("content-type") or "text/event-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    half = data[: len(data) // 2]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(half), half))
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
