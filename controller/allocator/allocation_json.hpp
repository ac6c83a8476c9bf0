// JSON form of the allocation problem and its result: what `gaptrain solve` reads and prints,
// and what the simulator and the tests store.
//
// Problem schema (keys not listed are errors, so a typo never silently falls back to a default):
//
//   {"horizon_s": 600,                        optional, default 600
//    "objective": "throughput",               optional: "throughput" | "speedup" | "fair"
//    "fair_p": 0,                             optional, -4 to 1 (objective "fair" only)
//    "nodes": [{"name": "n1",                 required
//               "job": null,                  optional: id of the elastic job holding it
//               "hole_end_s": null}],         optional: seconds until the regular workload
//                                             takes the node back; null: unknown
//    "jobs": [{"id": "j1", "min_nodes": 1, "max_nodes": 64,          all required
//              "curve": [[1, 2831.0], [2, 5259.0]],                  [nodes, samples/s] points
//              "up_cost_s": 18, "down_cost_s": 12,
//              "batch_host": "n1",            optional (null allowed): a node the job holds
//              "weight": 1.0}],               optional, default 1 (objective "fair" only)
//    "solver": {"time_limit_s": 10, "mip_gap": 1e-6, "max_hole_classes": 4}}   all optional
//
// Node counts and max_hole_classes must be integers that fit in an int; 2.0 counts as 2.
#pragma once

#include <json/json.h>

#include <string>
#include <string_view>

#include "allocator/allocation.hpp"

namespace gaptrain::allocator {

// Builds a problem from a parsed JSON document and validate()s it.
//
// Throws InputError naming the offending field as a path ("jobs[0].curve[1]",
// "nodes[2].hole_end_s") for: an unknown key (the message lists the allowed ones), a missing
// required key, a value of the wrong type ("expected an integer, got \"2\""), an integer out of
// int range, an unknown objective, a bad scaling curve, and everything validate() rejects.
AllocationProblem problem_from_json(const Json::Value& document);

// Parses JSON text strictly (no comments, no trailing commas, no duplicate keys, nothing after
// the document) and then applies problem_from_json(). A syntax error is an InputError with an
// empty field and jsoncpp's message on one line, e.g. "invalid JSON: Line 3, Column 5: Missing
// ',' or '}' in object declaration".
AllocationProblem parse_problem(std::string_view text);

// The inverse of problem_from_json(): every field is written, defaults included, and a node's
// "job", "hole_end_s" and a job's "batch_host" are null when empty.
Json::Value problem_to_json(const AllocationProblem& problem);

// {"status": "optimal" | "time_limit" | "infeasible" | "not_solved", "objective": x,
//  "best_bound": x, "allocation": {"j1": ["n1", ...], "j2": []}, "solve_ms": x,
//  "message": "..."}   ("message" only when non-empty)
// Non-finite numbers (e.g. an unbounded best_bound) are written as null, which JSON can carry.
Json::Value result_to_json(const AllocationResult& result);

// Serializes `value`: one line when `pretty` is false, indented by two spaces otherwise; no
// trailing newline either way. Reals keep 15 significant digits, so every number a person
// wrote comes back unchanged while computed values do not grow noise digits. An infinite or NaN
// number is written as null: the text is always JSON.
std::string to_json_text(const Json::Value& value, bool pretty);

}  // namespace gaptrain::allocator
