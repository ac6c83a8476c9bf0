#!/usr/bin/env python3
"""Sends requests to gaptraind at HOST:PORT one after another, SPACING seconds apart, each a
line already sealed (the arguments after the first three), and prints each one's latency
(connect to reply). Exits 1 at the first request not answered with "ok":true within TIMEOUT
seconds, saying which. Credentials are sealed beforehand so that only gaptraind's answer is
timed, not munge -s or Python's start.

    timed_requests.py HOST:PORT TIMEOUT SPACING CREDENTIAL..."""
import sys
import time

from send_line import ask


def main() -> int:
    host, port = sys.argv[1].rsplit(":", 1)
    timeout, spacing = float(sys.argv[2]), float(sys.argv[3])
    for index, line in enumerate(sys.argv[4:], start=1):
        start = time.monotonic()
        try:
            reply = ask(host, int(port), line, timeout)
        except OSError as error:
            print(f"request {index}: no answer within {timeout} s ({error})")
            return 1
        ms = (time.monotonic() - start) * 1000
        if b'"ok":true' not in reply:
            print(f"request {index}: answered {reply[:200]!r}")
            return 1
        print(f"request {index}: {ms:.1f} ms")
        time.sleep(spacing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
