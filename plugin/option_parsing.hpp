// The user options of the SPANK plugin as pure functions, so sbatch-time validation is unit
// tested without Slurm. Every error is one line naming the option, ready for the terminal.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gaptrain/goodput.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::plugin {

class OptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A curve's points as read, each checked by ScalingCurve's rule as it is added.
using Curve = std::vector<ScalingCurve::Point>;

struct Costs {
  double up_s = 0.0;
  double down_s = 0.0;
};

// --elastic-cost=UP:DOWN: two non-negative finite numbers of seconds.
Costs parse_costs(std::string_view text);

// --elastic-notice=S: seconds of notice the job wants before it loses a node, 0 to a day
// (protocol::kMaxNoticeS).
double parse_notice(std::string_view text);

// --elastic-batch=M0:MAX[:PERNODE]: the batch the job was tuned at, the largest it may train at
// and the most samples one node's micro-step holds (protocol::batch_range_problem's rule).
BatchRange parse_batch_range(std::string_view text);

// --elastic-noise-scale=PHI: the job's gradient noise scale in samples at M0 (0 to 1e15).
double parse_noise_scale(std::string_view text);

// --elastic=MIN-MAX (or N): 1 <= MIN <= MAX; MIN-MAX:STEP or a list ("2,4,8") allows only
// those counts (gaptrain/node_sizes.hpp, sbatch --array's spelling).
NodeSizes parse_node_range(std::string_view text);

// Per node type the curve a job gave; the key "" is one curve for every type.
using TypedCurves = std::map<std::string, Curve>;

// The contents of an --elastic-curve file: CSV lines "nodes,samples_per_s" (one curve, key "")
// or "type,nodes,samples_per_s" (a curve per node type, each type's points in order); an
// optional header line, blank lines and '#' comments are skipped. `origin` names the file.
TypedCurves parse_curve_csv(std::string_view text, std::string_view origin);

// Reads and parses the file at `path` (bounded size); OptionError when unreadable or invalid.
TypedCurves read_curve_file(const std::string& path);

// The curve as one environment-safe token, "1:100,2:190", and back (exact for doubles).
std::string curve_to_compact(const Curve& curve);
Curve curve_from_compact(std::string_view text);
// Typed curves as one token, "a100=1:200,2:390;v100=1:90" (one untyped curve as above).
std::string curves_to_compact(const TypedCurves& curves);
TypedCurves curves_from_compact(std::string_view text);

}  // namespace gaptrain::plugin
