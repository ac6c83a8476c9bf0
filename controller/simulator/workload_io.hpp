// Parsers for the simulator's input files (formats: docs/design.md, "Input formats"). Pure: they
// take the file's text and its name, so tests feed strings; read_input_file() does the file and
// gzip part.
//
// Every error is an InputError whose field is "NAME:LINE" (1-based line of the offending
// record; "NAME" alone for the file as a whole) and whose text says what was expected and what
// was found, e.g. `jobs.csv:4: min_nodes: expected an integer >= 1, got "x"`; what was found
// is quoted by quote_input (csv_record.hpp): at most 60 bytes of it, so a message stays short.
// The CSV files are read by one field reader (split_csv_record): RFC 4180 quoting, spaces
// around fields ignored, UTF-8 only.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/goodput.hpp"
#include "gaptrain/scaling_curve.hpp"
#include "simulator/model_curves.hpp"
#include "simulator/sim_options.hpp"

namespace gaptrain::sim {

// The most bytes an input file may hold, gunzipped: above the real logs (KTH-SP2 is 2.6 MB, two
// weeks of Summit node events 8.7 MB, so a year of them ~230 MB), below what would exhaust a
// workstation (the parsed rows take a few times the text). `simulate --max-input-mb` changes it.
inline constexpr std::size_t kDefaultMaxInputBytes =
    static_cast<std::size_t>(kMaxInputMbOption.default_value) << 20;

// The whole content of `path`, gunzipped when the name ends in ".gz". Throws InputError
// (field = path) when the file cannot be read, is not valid gzip (with the system's reason),
// or holds more than `max_bytes` (before or after gunzip; reading stops there).
std::string read_input_file(const std::string& path, std::size_t max_bytes = kDefaultMaxInputBytes);

// The gunzipped content of gzip bytes (e.g. a log compiled into the binary); `name` names them
// in the InputError thrown when they are not valid gzip or inflate past `max_bytes`.
std::string gunzip(std::string_view compressed, const std::string& name,
                   std::size_t max_bytes = kDefaultMaxInputBytes);

// One job of a Standard Workload Format log, as the replay needs it.
struct SwfJob {
  long long id = 0;
  double submit_s = 0.0;     // seconds from the log's start (field 2)
  double run_s = 0.0;        // actual run time (field 4)
  int nodes = 0;             // allocated processors (field 5), else requested (field 8)
  double requested_s = 0.0;  // requested time (field 9); the run time when the log has -1
};

struct SwfLog {
  std::vector<SwfJob> jobs;       // in file order
  int max_nodes = 0;              // "; MaxNodes:" header, else "; MaxProcs:"
  long long unix_start_time = 0;  // "; UnixStartTime:" header (0 when absent)
  // Records left out because the log cannot replay them: run time or size unknown (-1) or 0
  // (cancelled before start), or wider than the machine.
  int skipped = 0;
};

// Header lines start with ';'. A record has 18 whitespace-separated fields; -1 means unknown.
// Throws when a record is malformed (field count, a non-number) or the header gives no machine
// size (neither MaxNodes nor MaxProcs).
SwfLog parse_swf(std::string_view text, const std::string& name);

// A node-event log row: `time,node,state` (epoch seconds, node name, idle|busy), optionally
// with a fourth column `type`, the node's type (empty: not said on this row). An
// optional first line `time,node,state` or `time,node,state,type` is a header. Rows must be in
// non-decreasing time order, and a node's rows give it at most one type.
struct NodeEventRow {
  double time_s = 0.0;
  std::string node;
  bool idle = false;
  std::string type;
};
std::vector<NodeEventRow> parse_node_events(std::string_view text, const std::string& name);

// The elastic job mix: header `id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,
// down_cost_s`, then one job per line. Ids unique; 1 <= min <= max; work > 0; costs >= 0.
// Two more columns, `batch_size,max_batch_size`, give a job the batch it was tuned at (M0) and
// the largest it may train at (`simulate --models`); an empty batch_size leaves that
// job without a batch range. With a batch range, work_samples is the progress to make: samples
// at M0, each sample at a larger batch counting for its statistical efficiency.
struct JobRow {
  std::string id;
  double submit_s = 0.0;
  std::string model;
  int min_nodes = 1;
  int max_nodes = 1;
  double work_samples = 0.0;
  double up_cost_s = 0.0;
  double down_cost_s = 0.0;
  std::optional<BatchRange> batch;  // max_per_node 0: what the job's model says fits
  // The only counts it runs on (the allowed_sizes column); empty: every count.
  std::vector<int> allowed_sizes;
  int line = 0;  // line of the jobs file it came from, for messages
};
std::vector<JobRow> parse_jobs(std::string_view text, const std::string& name);

// Scaling curves: header `model,nodes,samples_per_s`, rows in any order; per model the node
// counts must be distinct (they are sorted). Model name -> curves. A fourth column `type`
// (header `model,nodes,samples_per_s,type`) gives a model a curve per node type, the
// types it runs on (model_curves.hpp); a model's rows all have a type or none does (the same
// curve on every type), and per model and type the node counts are distinct.
using CurveTable = std::map<std::string, ModelCurves>;
CurveTable parse_curves(std::string_view text, const std::string& name);

// The nodes' types (`--node-types FILE`): header `node,type`, one row per node named
// as the replay names it; each node at most once. `line` is the row's, for messages.
struct NodeTypeRow {
  std::string node;
  std::string type;
  std::size_t line = 0;
};
std::vector<NodeTypeRow> parse_node_types(std::string_view text, const std::string& name);

// Throws InputError (field "JOBS_NAME:LINE") for the first job whose model has no curve.
void check_models_known(const std::vector<JobRow>& jobs, const CurveTable& curves,
                        const std::string& jobs_name);

}  // namespace gaptrain::sim
