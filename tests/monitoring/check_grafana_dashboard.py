#!/usr/bin/env python3
"""Every metric the Grafana dashboard queries is one gaptraind exports.

Usage: check_grafana_dashboard.py DASHBOARD.json METRICS.cpp

The exported names are the families metrics.cpp registers (`.Name("...")`); a histogram's
series add _bucket, _count and _sum. Every PromQL `expr` in the dashboard (panels, rows and
templating alike) is read for the metric names it selects: a name that is not exported fails
the test, naming the panel. Panels also query through the ${DS_PROMETHEUS} data source.
"""

import json
import re
import sys

PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "bool", "offset", "inf", "nan",
}
HISTOGRAM_SUFFIXES = ("_bucket", "_count", "_sum")


def exported_metrics(metrics_cpp):
    text = open(metrics_cpp, encoding="utf-8").read()
    names = set(re.findall(r'\.Name\("([a-zA-Z_:][a-zA-Z0-9_:]*)"\)', text))
    histograms = set()
    # A family built by BuildHistogram(): its name is the first .Name() after it.
    for match in re.finditer(r'BuildHistogram\(\)\s*\.Name\("([^"]+)"\)', text):
        histograms.add(match.group(1))
    return names, histograms


def metric_names(expr):
    """The metric names an expression selects: identifiers that are not functions (followed by
    a parenthesis), keywords, label names inside {...} or by (...), nor inside strings."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)         # string literals
    text = re.sub(r"\{[^}]*\}", "", text)                      # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)                     # range selectors, [$__rate_interval]
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    text = re.sub(r"\$\{?\w+\}?", "", text)                    # Grafana variables
    names = []
    for match in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text):
        word = match.group(0)
        before = text[: match.start()]
        after = text[match.end():].lstrip()
        if before and (before[-1].isdigit() or before[-1] == "."):
            continue  # a number's exponent or unit (1e3)
        if after.startswith("("):
            continue  # a function or an aggregation
        if word.lower() in PROMQL_WORDS:
            continue
        names.append(word)
    return names


def exprs(node, where="dashboard"):
    """(where, expr) for every expr in the dashboard, where naming its panel's title."""
    if isinstance(node, dict):
        here = f'panel "{node["title"]}"' if "title" in node and "type" in node else where
        for key, value in node.items():
            if key == "expr" and isinstance(value, str):
                yield here, value
            else:
                yield from exprs(value, here)
    elif isinstance(node, list):
        for item in node:
            yield from exprs(item, where)


def datasources(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "datasource":
                yield value
            else:
                yield from datasources(value)
    elif isinstance(node, list):
        for item in node:
            yield from datasources(item)


def known(name, exported, histograms):
    if name in exported:
        return True
    return any(name.endswith(s) and name[: -len(s)] in histograms for s in HISTOGRAM_SUFFIXES)


def main():
    dashboard_path, metrics_cpp = sys.argv[1], sys.argv[2]
    dashboard = json.load(open(dashboard_path, encoding="utf-8"))
    exported, histograms = exported_metrics(metrics_cpp)
    if not exported:
        print(f"{metrics_cpp}: no .Name(\"...\") found: cannot tell what gaptraind exports")
        return 1
    problems = []
    found = list(exprs(dashboard))
    if not found:
        problems.append("the dashboard has no PromQL expr")
    used = set()
    for where, expr in found:
        for name in metric_names(expr):
            used.add(name)
            if not known(name, exported, histograms):
                problems.append(f"{where}: {name} is not a metric gaptraind exports (in: {expr})")
    for source in datasources(dashboard):
        uid = source.get("uid") if isinstance(source, dict) else source
        if uid != "${DS_PROMETHEUS}":
            problems.append(f"a data source is {json.dumps(source)}, not ${{DS_PROMETHEUS}}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"exported: {', '.join(sorted(exported))}")
        return 1
    print(f"{len(found)} expressions use {len(used)} metrics, all exported: {', '.join(sorted(used))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
