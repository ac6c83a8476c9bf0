#!/usr/bin/env python3
"""Sends one line (stdin, without its newline) to gaptraind at HOST:PORT and prints the reply
line, the way the plugin and `gaptrain status` talk to it (docs/protocol.md: one request per
connection). For tests that need raw requests: forged, replayed or unauthenticated ones.
The other request senders of tests/slurm import its ask()."""
import socket
import sys


def ask(host: str, port: int, line: str, timeout: float) -> bytes:
    """One request on its own connection: sends LINE and its newline, returns the reply line
    (empty when gaptraind closed without one)."""
    with socket.create_connection((host, port), timeout=timeout) as conn:
        conn.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply


def main() -> int:
    host, port = sys.argv[1].rsplit(":", 1)
    reply = ask(host, int(port), sys.stdin.read().strip(), 10)
    print(reply.decode(errors="replace").strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
