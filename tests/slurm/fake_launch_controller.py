#!/usr/bin/env python3
"""A stand-in for gaptraind that asks a gaptrain-launch to drain a node (gaptraind does not
decide shrinks yet). Usage: fake_launch_controller.py MUNGE_SOCKET DRAIN_TRIGGER REPORTS PORTFILE

Answers every launcher report with the job's nodes (as reported running, plus drained ones) and,
once the file DRAIN_TRIGGER exists, drain = the nodes listed in it. Each report's payload
(opened with unmunge) is appended to REPORTS, one JSON line each. Writes its port to PORTFILE.
Runs until killed."""
import json
import os
import socket
import subprocess
import sys

munge_socket, trigger, reports, portfile = sys.argv[1:5]
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
nodes = []
while True:
    conn, _ = server.accept()
    with conn:
        line = conn.makefile("rb").readline()
        opened = subprocess.run(["unmunge", "-S", munge_socket, "-m", "/dev/null"], input=line,
                                capture_output=True)
        report = json.loads(opened.stdout)
        with open(reports, "a") as f:
            f.write(json.dumps(report) + "\n")
        for node in report["running"] + report["drained"]:
            if node not in nodes:
                nodes.append(node)
        drain = open(trigger).read().split() if os.path.exists(trigger) else []
        reply = {"ok": True, "launch": {"nodes": nodes, "drain": [n for n in drain if n in nodes]}}
        conn.sendall((json.dumps(reply) + "\n").encode())
