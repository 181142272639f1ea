"""The fake vendor of the gateway benchmark: one recorded turn for every POST, on 127.0.0.1.

Run as its own process (stdlib only, so the gateways' CPU is measured apart from it):
``python benchmarks/gateway_vendor.py SPEC_FILE MAX_REQUESTS SECONDS``, the spec a JSON object
``{vendor: [body file, media type]}``. It binds an ephemeral port on 127.0.0.1, prints it on
stdout, answers a POST under ``/<vendor>/`` (the rest of the path is the SDK's own) with that
vendor's body, and stops after ``MAX_REQUESTS`` answers or ``SECONDS``, whichever comes
first, or when its stdin closes.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def main() -> None:
    spec_file, limit, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    with open(spec_file) as f:
        spec = json.load(f)
    bodies: dict[str, tuple[bytes, str]] = {}
    for vendor, (path, media_type) in spec.items():
        with open(path, "rb") as f:
            bodies[vendor] = (f.read(), media_type)
    served = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            with lock:
                served[0] += 1
                over = served[0] > limit
            found = bodies.get(self.path.lstrip("/").split("/", 1)[0])
            if over or found is None:
                self.send_response(503 if over else 404)
                self.send_header("content-length", "0")
                self.end_headers()
                if over:
                    threading.Thread(target=server.shutdown, daemon=True).start()
                return
            body, media_type = found
            self.send_response(200)
            self.send_header("content-type", media_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a gateway stopped mid-request: nothing to report

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Timer(seconds, server.shutdown).start()

    def watch_stdin() -> None:
        sys.stdin.read()
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main()
