// A model's true scaling curves in the replay (the curves file, workload_io.hpp), per node type
// when the file gives types, and the ground truth of a job's rate on the nodes it
// holds (docs/simulator.md, "Node types"). Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::sim {

// As AllocatableJob's curve and curves (allocator/allocation.hpp): `by_type` empty, the model runs
// on every node type at `curve`; otherwise it runs only on the types named there, and `curve`
// is its slowest: at each count, the least of its types' rates (slowest_curve below). That is
// what a user who measured one kind of node gives, and what --ignore-node-types tells.
struct ModelCurves {
  ScalingCurve curve;
  std::map<std::string, ScalingCurve> by_type;
};

// The least (slowest) and the greatest (fastest) of `curves` at each node count any of them was
// measured at, interpolated between those counts as every curve is. Where two curves cross
// between measured counts the slowest lies below their least and the fastest above their
// greatest (each type's curve is linear there), so the slowest never promises more than the
// job does and the fastest, which the oracle bound uses, never less. `curves` not empty.
ScalingCurve slowest_curve(const std::map<std::string, ScalingCurve>& curves);
ScalingCurve fastest_curve(const std::map<std::string, ScalingCurve>& curves);

// A typed model's fastest curve, an untyped one's curve: at no count does the job train faster.
ScalingCurve fastest_curve(const ModelCurves& model);

// The ground truth: samples/s of a job of `model` training on `nodes` nodes of `types` (the
// types of those nodes, each once; "" untyped). On one type: its curve there (the model's
// `curve` when it has no types). On several (it should not be, when gaptraind is told the
// types; it can be when it is not): synchronous data parallel waits for its slowest node, so
// the least of those types' curves at the total count. On a type the model has no curve for:
// 0, since the job cannot train there and every step waits for that node.
double training_rate(const ModelCurves& model, const std::vector<std::string>& types, int nodes);

}  // namespace gaptrain::sim
