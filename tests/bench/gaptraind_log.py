"""gaptraind's log as the cluster replay reads it (tests/bench/cluster_replay.py): the lines
as events, and the actions and latencies of one log. Python 3 standard library only."""

import re

from replay_stats import stats

LINE_RE = re.compile(r"^gaptraind: time=(?P<time>[0-9.]+) level=\S+ (?P<rest>.*)$")
FIELD_RE = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)')


def parse_log(path):
    """gaptraind's lines as dicts: `time` (float epoch), `msg`, and every KEY=value field."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE_RE.match(line.rstrip("\n"))
            if not m:
                continue
            event = {"time": float(m.group("time"))}
            for key, value in FIELD_RE.findall(m.group("rest")):
                if value.startswith('"'):
                    value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
                event[key] = value
            events.append(event)
    return events


def node_list(value):
    return [n for n in value.split(",") if n]


def grow_latencies(events):
    """For each node a grow added: seconds from the node's latest preceding "hole opened"
    to the "action done ACTION=grow" (admissions count as grows: they fill holes too)."""
    opened = {}
    latencies = []
    for e in events:
        if e.get("msg") == "hole opened":
            opened[e.get("NODE")] = e["time"]
        elif e.get("msg") == "action done" and e.get("ACTION") in ("grow", "admit"):
            for node in node_list(e.get("NODES", "")):
                if node in opened:
                    latencies.append(e["time"] - opened[node])
    return latencies


def reclaim_latencies(events):
    """For each reclaimed node: seconds from the first "reclaim needed" for it (per elastic
    job) to the "action done" shrink or requeue of that job that released it. Reclaims never
    released (the job ended first, or the log ended) are counted apart."""
    pending = {}  # (job, node) -> time of the first "reclaim needed"
    latencies = []
    for e in events:
        if e.get("msg") == "reclaim needed":
            pending.setdefault((e.get("JOB_ID"), e.get("NODE")), e["time"])
        elif e.get("msg") == "action done" and e.get("ACTION") in ("shrink", "requeue"):
            for node in node_list(e.get("NODES", "")):
                since = pending.pop((e.get("JOB_ID"), node), None)
                if since is not None:
                    latencies.append(e["time"] - since)
    return latencies, len(pending)


def notice_lead_times(events):
    """For each reclaimed node (a "reclaim needed" for it): seconds from the first "notice
    given" for it (per elastic job, since the last "notice withdrawn") to the "drain requested"
    that named it and to the "action done" that released it; a node released without a notice
    counts 0 and as unnoticed (max_notice_s 0, or a gaptraind without notices)."""
    noticed, drained, reclaimed = {}, {}, set()
    before_drain, before_taking, unnoticed = [], [], 0
    for e in events:
        msg, job = e.get("msg"), e.get("JOB_ID")
        if msg == "notice given":
            noticed.setdefault((job, e.get("NODE")), e["time"])
        elif msg == "notice withdrawn":
            noticed.pop((job, e.get("NODE")), None)
        elif msg == "reclaim needed":
            reclaimed.add((job, e.get("NODE")))
        elif msg == "drain requested":
            for node in node_list(e.get("NODES", "")):
                drained.setdefault((job, node), e["time"])
        elif msg == "action done" and e.get("ACTION") in ("shrink", "requeue"):
            for node in node_list(e.get("NODES", "")):
                key = (job, node)
                since = noticed.pop(key, None)
                drain_at = drained.pop(key, e["time"])
                if key not in reclaimed:
                    continue
                reclaimed.discard(key)
                if since is None:
                    unnoticed += 1
                    since = e["time"]
                before_drain.append(max(0.0, drain_at - since))
                before_taking.append(e["time"] - since)
    return {"before_drain_s": stats(before_drain), "before_taking_s": stats(before_taking),
            "unnoticed": unnoticed}


def action_counts(events):
    """"ACTION done" and "ACTION failed" per action, and "preempted": the satellites Slurm
    freed itself for regular jobs (satellite_qos), one per job and time gaptraind saw it."""
    counts = {}
    for e in events:
        if e.get("msg") in ("action done", "action failed"):
            key = f"{e.get('ACTION', '?')} {e['msg'].split()[1]}"
        elif e.get("ACTION") == "preempted":
            key = "preempted"
        else:
            continue
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def grows_refused_for_priority(events):
    """The grows Slurm refused because a regular job of higher priority pends ("Immediate
    execution impossible, insufficient priority": 22.05-24.05 outside a satellites' partition or
    reservation). Not the other failures: "Requested nodes are busy" is a race with a regular
    job that took the node between the poll and the grow."""
    return sum(1 for e in events if e.get("msg") == "action failed" and e.get("ACTION") == "grow"
               and "insufficient priority" in e.get("REASON", ""))


def log_summary(path):
    events = parse_log(path)
    grows = grow_latencies(events)
    reclaims, unreleased = reclaim_latencies(events)
    return {"actions": action_counts(events),
            "grows_refused_for_priority": grows_refused_for_priority(events),
            "reclaims_needed": sum(1 for e in events if e.get("msg") == "reclaim needed"),
            "grow_latency_s": stats(grows),
            "reclaim_release_latency_s": stats(reclaims) | {"unreleased": unreleased},
            "notice": notice_lead_times(events)}
