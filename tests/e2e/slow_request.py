"""A request still in flight while a server shuts down.

    python3 tests/e2e/slow_request.py PORT READY_FILE [DELAY_S]

Sends the head and part of the body of an MCP `tools/list` POST to
127.0.0.1:PORT, creates READY_FILE, waits DELAY_S (default 1.5), sends the
rest and reads the answer. Exits 0 only for a complete 200 answer: a server
that stops gracefully waits for the body and answers before exiting.
"""

import socket
import sys
import time

port, ready = int(sys.argv[1]), sys.argv[2]
delay = float(sys.argv[3]) if len(sys.argv) > 3 else 1.5
body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
s = socket.create_connection(("127.0.0.1", port), timeout=20)
s.sendall(
    b"POST /mcp/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n" % len(body) + body[:10]
)
open(ready, "w").close()
time.sleep(delay)
s.sendall(body[10:])
reply = b""
while chunk := s.recv(65536):
    reply += chunk
status = reply.split(b"\r\n", 1)[0].decode(errors="replace")
print(status or "no answer")
sys.exit(0 if status.startswith("HTTP/1.1 200") and b'"tools"' in reply else 1)
