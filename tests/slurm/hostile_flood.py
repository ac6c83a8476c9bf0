#!/usr/bin/env python3
"""What a hostile local user did to gaptraind in a probe: for SECONDS (or until
SIGTERM, which ends it as done), garbage lines
as fast as one connection after another allows, while IDLE connections are held open without a
request (each replaced when gaptraind closes it), and every credential line of CREDENTIALS (munge
credentials the user sealed: authenticated requests gaptraind must refuse) sent once.

    hostile_flood.py HOST:PORT SECONDS IDLE [CREDENTIALS [PROGRESS]]

Prints "garbage=N idle_opened=N credentials=N" when done, and to PROGRESS (a file, if given as
the fifth argument) every 100 garbage lines, for a test to wait on. Bounded in time and count; loopback
only (the test cluster's gaptraind)."""
import selectors
import signal
import socket
import sys
import time

MAX_GARBAGE = 200_000  # a bound on the loop whatever the machine's speed


def connect(host: str, port: int) -> socket.socket | None:
    try:
        return socket.create_connection((host, port), timeout=2)
    except OSError:
        return None


def send_line(host: str, port: int, line: bytes) -> None:
    conn = connect(host, port)
    if conn is None:
        return
    with conn:
        try:
            conn.sendall(line + b"\n")
            conn.recv(4096)
        except OSError:
            pass


def main() -> int:
    host, port_text = sys.argv[1].rsplit(":", 1)
    port, seconds, idle = int(port_text), float(sys.argv[2]), int(sys.argv[3])
    credentials = []
    if len(sys.argv) > 4:
        with open(sys.argv[4], "rb") as f:
            credentials = [line.strip() for line in f if line.strip()]
    for credential in credentials:
        send_line(host, port, credential)

    stopped = False

    def stop(_signal: int, _frame: object) -> None:
        nonlocal stopped
        stopped = True

    signal.signal(signal.SIGTERM, stop)
    progress = sys.argv[5] if len(sys.argv) > 5 else None
    selector = selectors.DefaultSelector()
    held: set[socket.socket] = set()
    opened = garbage = 0
    end = time.monotonic() + seconds
    while not stopped and time.monotonic() < end and garbage < MAX_GARBAGE:
        while len(held) < idle:
            conn = connect(host, port)
            if conn is None:
                break
            conn.setblocking(False)
            selector.register(conn, selectors.EVENT_READ)
            held.add(conn)
            opened += 1
        # Connections gaptraind closed (or answered) are let go, to be opened again.
        for key, _ in selector.select(timeout=0):
            conn = key.fileobj
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                selector.unregister(conn)
                conn.close()
                held.discard(conn)
        send_line(host, port, b"garbage " + str(garbage).encode())
        garbage += 1
        if progress and garbage % 100 == 0:
            with open(progress, "w") as f:
                f.write(f"{garbage}\n")
    for conn in held:
        conn.close()
    print(f"garbage={garbage} idle_opened={opened} credentials={len(credentials)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
