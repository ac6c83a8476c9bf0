#!/usr/bin/env python3
"""Sends one line (stdin, without its newline) to gaptraind at HOST:PORT and prints the reply
line, the way the plugin and `gaptrain status` talk to it (docs/protocol.md: one request per
connection). For tests that need raw requests: forged, replayed or unauthenticated ones."""
import socket
import sys


def main() -> int:
    host, port = sys.argv[1].rsplit(":", 1)
    line = sys.stdin.read().strip() + "\n"
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(line.encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    print(reply.decode(errors="replace").strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
