#include "simulator/workload_io.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/node_sizes.hpp"
#include "simulator/csv_record.hpp"
#include "simulator/record_lexing.hpp"

namespace gaptrain::sim {
namespace {

using namespace lexing;

// ---- Node events ----------------------------------------------------------------------------

constexpr std::array<std::string_view, 3> kNodeEventsColumns = {"time", "node", "state"};
// With the nodes' types as a fourth column.
constexpr std::array<std::string_view, 4> kTypedNodeEventsColumns = {"time", "node", "state",
                                                                     "type"};

// A name (a node's, a node type's) as the replay uses it: not empty and, as every name in
// gaptrain, at most bounds::kMaxNameBytes bytes; `what` names the column.
std::string_view checked_name(std::string_view name, const std::string& what, const Where& where) {
  if (name.empty()) where.fail(what + ": expected a " + what + " name, got \"\"");
  if (name.size() > bounds::kMaxNameBytes) {
    where.fail(what + ": a name of " + std::to_string(name.size()) + " bytes, " + quoted(name) +
               ": " + what + " names are at most " + std::to_string(bounds::kMaxNameBytes) +
               " bytes");
  }
  return name;
}

NodeEventRow parse_node_event(std::string_view line, const Where& where) {
  std::array<std::string_view, 4> fields;
  std::array<std::string, 4> unescaped;
  const std::size_t count = csv_fields(line, where, kTypedNodeEventsColumns, fields, unescaped);
  if (count != 3 && count != 4) {
    where.fail("expected 3 columns (time,node,state) or 4 (time,node,state,type), got " +
               std::to_string(count));
  }
  const auto& [time, node, state, type] = fields;
  const std::optional<double> time_s = to_number(time);
  if (!time_s || *time_s < 0 || *time_s > bounds::kMaxTraceTimeS) {
    where.fail("time: expected epoch seconds >= 0 and at most 1e10, got " + quoted(time));
  }
  checked_name(node, "node", where);
  if (state != "idle" && state != "busy") {
    where.fail("state: expected idle or busy, got " + quoted(state));
  }
  // An empty type says nothing of the node (a row of a log that gives it elsewhere).
  if (!type.empty()) checked_name(type, "type", where);
  return NodeEventRow{*time_s, std::string(node), state == "idle", std::string(type)};
}

// ---- Jobs and curves ------------------------------------------------------------------------

constexpr std::array<std::string_view, 8> kJobsColumns = {"id",        "submit_s",   "model",
                                                          "min_nodes", "max_nodes",  "work_samples",
                                                          "up_cost_s", "down_cost_s"};
// The job mix with a batch range per job.
constexpr std::array<std::string_view, 10> kBatchJobsColumns = {
    "id",           "submit_s",  "model",       "min_nodes",  "max_nodes",
    "work_samples", "up_cost_s", "down_cost_s", "batch_size", "max_batch_size"};
// Either, with the counts each job runs at as one more column: "2-16:2", "1,2,4,8"
// (quoted: it holds commas) or empty for every count (gaptrain/node_sizes.hpp).
constexpr std::array<std::string_view, 9> kSizedJobsColumns = {
    "id",           "submit_s",  "model",       "min_nodes",    "max_nodes",
    "work_samples", "up_cost_s", "down_cost_s", "allowed_sizes"};
constexpr std::array<std::string_view, 11> kSizedBatchJobsColumns = {
    "id",        "submit_s",    "model",      "min_nodes",      "max_nodes",    "work_samples",
    "up_cost_s", "down_cost_s", "batch_size", "max_batch_size", "allowed_sizes"};
constexpr std::array<std::string_view, 3> kCurvesColumns = {"model", "nodes", "samples_per_s"};
constexpr std::array<std::string_view, 2> kNodeTypesColumns = {"node", "type"};
// Curves per node type: a row's type, empty for a model's curve on every type.
constexpr std::array<std::string_view, 4> kTypedCurvesColumns = {"model", "nodes", "samples_per_s",
                                                                 "type"};

// Checked column values; `column` names the column in the message, `bound` says the limit in
// words ("1", "min_nodes (4)").
int integer_at_least(std::string_view value, int minimum, const std::string& column,
                     const std::string& bound, const Where& where) {
  const std::optional<int> number = to_integer<int>(value);
  if (!number || *number < minimum) {
    where.fail(column + ": expected an integer >= " + bound + ", got " + quoted(value));
  }
  return *number;
}

// A number in [0, maximum]; `maximum_text` says the maximum in the message.
double number_at_least_zero(std::string_view value, const std::string& column, const Where& where,
                            double maximum, const std::string& maximum_text) {
  const std::optional<double> number = to_number(value);
  if (!number || *number < 0 || *number > maximum) {
    where.fail(column + ": expected a finite number >= 0 and at most " + maximum_text + ", got " +
               quoted(value));
  }
  return *number;
}

double positive_number(std::string_view value, const std::string& column, const Where& where) {
  const std::optional<double> number = to_number(value);
  if (!number || *number <= 0) {
    where.fail(column + ": expected a finite number > 0, got " + quoted(value));
  }
  return *number;
}

std::string_view non_empty(std::string_view value, const std::string& column, const Where& where) {
  if (value.empty()) where.fail(column + ": expected a non-empty value, got \"\"");
  return value;
}

// A record of the file's N columns; `unescaped` must outlive the views returned.
template <std::size_t N>
std::array<std::string_view, N> csv_columns(std::string_view line, const Where& where,
                                            const std::array<std::string_view, N>& column_names,
                                            std::array<std::string, N>& unescaped) {
  std::array<std::string_view, N> fields;
  const std::size_t count = csv_fields(line, where, column_names, fields, unescaped);
  if (count != N) {
    where.fail("expected " + std::to_string(N) + " columns, got " + std::to_string(count));
  }
  return fields;
}

// The 8 columns every job has (`c` holds at least those, in kJobsColumns' order).
template <std::size_t N>
JobRow parse_job(const std::array<std::string_view, N>& c, const Where& where) {
  JobRow job;
  job.id = non_empty(c[0], "id", where);
  job.submit_s = number_at_least_zero(c[1], "submit_s", where, bounds::kMaxTraceTimeS, "1e10");
  job.model = non_empty(c[2], "model", where);
  job.min_nodes = integer_at_least(c[3], 1, "min_nodes", "1", where);
  job.max_nodes = integer_at_least(c[4], job.min_nodes, "max_nodes",
                                   "min_nodes (" + std::to_string(job.min_nodes) + ")", where);
  job.work_samples = positive_number(c[5], "work_samples", where);
  if (job.work_samples > bounds::kMaxWorkSamples) {
    where.fail("work_samples: expected at most 3.1536e+23 (1e15 samples/s for ten years), got " +
               quoted(c[5]));
  }
  // The bound `gaptrain solve` and the plugin put on rescale costs (bounds.hpp).
  const std::string ten_years = kTenYears + " (ten years)";
  job.up_cost_s = number_at_least_zero(c[6], "up_cost_s", where, bounds::kMaxSeconds, ten_years);
  job.down_cost_s =
      number_at_least_zero(c[7], "down_cost_s", where, bounds::kMaxSeconds, ten_years);
  job.line = static_cast<int>(std::min<std::size_t>(where.line, std::numeric_limits<int>::max()));
  return job;
}

// batch_size (M0) and max_batch_size, both empty for a job without a batch range.
void parse_batch_columns(std::string_view tuned, std::string_view max, const Where& where,
                         JobRow& job) {
  if (tuned.empty() && max.empty()) return;
  const std::string bound = std::to_string(bounds::kMaxBatch);
  BatchRange range;
  range.tuned = integer_at_least(tuned, 1, "batch_size", "1", where);
  range.max = integer_at_least(max, range.tuned, "max_batch_size",
                               "batch_size (" + std::to_string(range.tuned) + ")", where);
  if (range.max > bounds::kMaxBatch) {
    where.fail("max_batch_size: expected at most " + bound + ", got " + quoted(max));
  }
  job.batch = range;
}

// allowed_sizes: the counts from min_nodes to max_nodes the job runs at; empty for every count.
void parse_allowed_sizes(std::string_view text, const Where& where, JobRow& job) {
  if (text.empty()) return;
  const std::optional<NodeSizes> sizes = node_sizes_from_text(text);
  if (!sizes) {
    where.fail(
        "allowed_sizes: expected counts as sbatch --array spells them (2-16:2, or "
        "\"1,2,4,8\" quoted), or nothing for every count, got " +
        quoted(text));
  }
  NodeSizes own{job.min_nodes, job.max_nodes, sizes->allowed};
  if (own.allowed.empty()) {  // "2-16" or "1,2,3,4": every count from its first to its last
    for (int n = sizes->min; n <= sizes->max && n <= job.max_nodes; ++n) own.allowed.push_back(n);
  }
  if (const std::optional<std::string> problem = node_sizes_problem(own)) {
    where.fail("allowed_sizes: " + *problem + " (min_nodes " + std::to_string(job.min_nodes) +
               ", max_nodes " + std::to_string(job.max_nodes) + ")");
  }
  if (static_cast<int>(own.allowed.size()) != job.max_nodes - job.min_nodes + 1) {
    job.allowed_sizes = std::move(own.allowed);
  }
}

// A curve point and the line it came from, to name the line of a duplicate.
struct CurveRow {
  ScalingCurve::Point point;
  std::size_t line = 0;
};

// The curve of `model` on `type` ("" for every type) from its rows, in any order; node counts
// distinct.
ScalingCurve curve_of(const std::string& model, const std::string& type,
                      std::vector<CurveRow>& rows, const std::string& name) {
  // Sorted by line too, so that of two points at the same node count the later is reported.
  std::sort(rows.begin(), rows.end(), [](const CurveRow& a, const CurveRow& b) {
    return std::pair(a.point.nodes, a.line) < std::pair(b.point.nodes, b.line);
  });
  const std::string whose = quoted(model) + (type.empty() ? "" : " on type " + quoted(type));
  std::vector<ScalingCurve::Point> points;
  for (const CurveRow& row : rows) {
    if (!points.empty() && points.back().nodes == row.point.nodes) {
      Where{name, row.line}.fail(
          "nodes: " + whose + " already has a point at " + std::to_string(row.point.nodes) +
          " nodes; each node count may appear once per model" + (type.empty() ? "" : " and type"));
    }
    points.push_back(row.point);
  }
  // The rows were checked, so this should not throw; if ScalingCurve's contract grows stricter,
  // its message still reaches the user with the file and model named.
  try {
    return ScalingCurve(std::move(points));
  } catch (const InputError& e) {
    throw InputError(name, "model " + whose + ": " + e.what());
  }
}

}  // namespace

std::vector<NodeEventRow> parse_node_events(std::string_view text, const std::string& name) {
  std::vector<NodeEventRow> rows;
  // One row per line: reserving up front avoids regrowing a vector of millions of rows.
  rows.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  LineReader lines(text);
  std::string_view line;
  std::size_t previous_line = 0;
  // Node -> the type a row gave it and that row's line.
  std::unordered_map<std::string, std::pair<std::string, std::size_t>> typed_on;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const Where where{name, lines.number()};
    if (lines.number() == 1 && (is_header(line, where, kNodeEventsColumns) ||
                                is_header(line, where, kTypedNodeEventsColumns))) {
      continue;
    }
    NodeEventRow row = parse_node_event(line, where);
    if (!rows.empty() && row.time_s < rows.back().time_s) {
      where.fail("time: " + number_text(row.time_s) + " is before " +
                 number_text(rows.back().time_s) + " on line " + std::to_string(previous_line) +
                 "; rows must be in non-decreasing time order");
    }
    if (!row.type.empty()) {
      // A node is of one type: a log that says two is wrong on one of the lines.
      const auto [it, inserted] = typed_on.try_emplace(row.node, row.type, lines.number());
      if (!inserted && it->second.first != row.type) {
        where.fail("type: node " + quoted(row.node) + " is of type " + quoted(it->second.first) +
                   " on line " + std::to_string(it->second.second) + ", got " + quoted(row.type) +
                   "; a node has one type");
      }
    }
    previous_line = lines.number();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<JobRow> parse_jobs(std::string_view text, const std::string& name) {
  LineReader lines(text);
  // The header says whether the jobs have batch ranges.
  std::string_view header;
  if (!lines.next(header)) {
    throw InputError(name, "file is empty; expected the header line " + header_text(kJobsColumns));
  }
  const Where header_where{name, 1};
  const bool sized_batch = is_header(header, header_where, kSizedBatchJobsColumns);
  const bool sized = sized_batch || is_header(header, header_where, kSizedJobsColumns);
  const bool with_batch = sized_batch || is_header(header, header_where, kBatchJobsColumns);
  if (!with_batch && !sized && !is_header(header, header_where, kJobsColumns)) {
    header_where.fail("expected the header line " + header_text(kJobsColumns) + ", got " +
                      quoted(header) +
                      " (a mix with batch ranges adds ,batch_size,max_batch_size; one with "
                      "allowed sizes ends with ,allowed_sizes)");
  }
  std::vector<JobRow> jobs;
  std::unordered_map<std::string, int> line_of_id;
  std::string_view line;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const Where where{name, lines.number()};
    JobRow job;
    if (sized_batch) {
      std::array<std::string, 11> unescaped;
      const auto c = csv_columns(line, where, kSizedBatchJobsColumns, unescaped);
      job = parse_job(c, where);
      parse_batch_columns(c[8], c[9], where, job);
      parse_allowed_sizes(c[10], where, job);
    } else if (sized) {
      std::array<std::string, 9> unescaped;
      const auto c = csv_columns(line, where, kSizedJobsColumns, unescaped);
      job = parse_job(c, where);
      parse_allowed_sizes(c[8], where, job);
    } else if (with_batch) {
      std::array<std::string, 10> unescaped;
      const auto c = csv_columns(line, where, kBatchJobsColumns, unescaped);
      job = parse_job(c, where);
      parse_batch_columns(c[8], c[9], where, job);
    } else {
      std::array<std::string, 8> unescaped;
      job = parse_job(csv_columns(line, where, kJobsColumns, unescaped), where);
    }
    const auto [it, inserted] = line_of_id.emplace(job.id, job.line);
    if (!inserted) {
      where.fail("id: " + quoted(job.id) + " is already used on line " +
                 std::to_string(it->second) + "; ids must be unique");
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

CurveTable parse_curves(std::string_view text, const std::string& name) {
  LineReader lines(text);
  std::string_view header;
  if (!lines.next(header)) {
    throw InputError(name,
                     "file is empty; expected the header line " + header_text(kCurvesColumns));
  }
  const Where header_where{name, 1};
  const bool typed = is_header(header, header_where, kTypedCurvesColumns);
  if (!typed && !is_header(header, header_where, kCurvesColumns)) {
    header_where.fail("expected the header line " + header_text(kCurvesColumns) + ", got " +
                      quoted(header) + " (curves per node type end with ,type)");
  }
  // Model -> node type ("" for a row without one) -> its points.
  std::map<std::string, std::map<std::string, std::vector<CurveRow>>> rows_by_model;
  std::string_view line;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const Where where{name, lines.number()};
    std::array<std::string, 4> unescaped;
    std::array<std::string_view, 4> c{};  // an untyped file's rows leave the type empty
    const std::size_t count = csv_fields(line, where, kTypedCurvesColumns, c, unescaped);
    if (const std::size_t columns = typed ? 4 : 3; count != columns) {
      where.fail("expected " + std::to_string(columns) + " columns, got " + std::to_string(count));
    }
    const std::string model(non_empty(c[0], "model", where));
    const int nodes = integer_at_least(c[1], 1, "nodes", "1", where);
    const std::optional<double> rate = to_number(c[2]);
    if (!rate) where.fail("samples_per_s: expected a finite number, got " + quoted(c[2]));
    // ScalingCurve's rule for the point; the order is checked per model below.
    const ScalingCurve::Point point{nodes, *rate};
    if (auto problem = ScalingCurve::point_problem(0, point)) where.fail(*problem);
    const std::string type(c[3].empty() ? std::string_view() : checked_name(c[3], "type", where));
    auto& by_type = rows_by_model[model];
    // A model's curve is the same on every type or given per type, as a registration's.
    if (!by_type.empty() && by_type.contains("") != type.empty()) {
      const auto& other = type.empty() ? by_type.begin()->second : by_type.at("");
      where.fail("type: " + quoted(model) + " has rows " +
                 (type.empty() ? "with a type" : "without a type") + " (line " +
                 std::to_string(other.front().line) +
                 "); give a type on every row of a model (its curve per type) or on none (the "
                 "same curve on every type)");
    }
    by_type[type].push_back({point, where.line});
  }
  if (rows_by_model.empty()) throw InputError(name, "no curve points: the file has only a header");

  CurveTable curves;
  for (auto& [model, by_type] : rows_by_model) {
    std::map<std::string, ScalingCurve> typed_curves;
    for (auto& [type, rows] : by_type) {
      typed_curves.emplace(type, curve_of(model, type, rows, name));
    }
    if (typed_curves.contains("")) {
      curves.emplace(model, ModelCurves{typed_curves.at(""), {}});
    } else {
      curves.emplace(model, ModelCurves{slowest_curve(typed_curves), std::move(typed_curves)});
    }
  }
  return curves;
}

std::vector<NodeTypeRow> parse_node_types(std::string_view text, const std::string& name) {
  LineReader lines(text);
  expect_header(lines, kNodeTypesColumns, name);
  std::vector<NodeTypeRow> rows;
  std::unordered_map<std::string, std::size_t> line_of_node;
  std::string_view line;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const Where where{name, lines.number()};
    std::array<std::string, 2> unescaped;
    const auto [node, type] = csv_columns(line, where, kNodeTypesColumns, unescaped);
    NodeTypeRow row{std::string(checked_name(node, "node", where)),
                    std::string(checked_name(type, "type", where)), where.line};
    const auto [it, inserted] = line_of_node.emplace(row.node, row.line);
    if (!inserted) {
      where.fail("node: " + quoted(row.node) + " is typed on line " + std::to_string(it->second) +
                 " already; a node has one type");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void check_models_known(const std::vector<JobRow>& jobs, const CurveTable& curves,
                        const std::string& jobs_name) {
  for (const JobRow& job : jobs) {
    if (curves.contains(job.model)) continue;
    // A few names say what the file holds; thousands would make the message the problem.
    constexpr std::size_t kModelsNamed = 10;
    std::string known;
    std::size_t named = 0;
    for (const auto& [model, curve] : curves) {
      if (named == kModelsNamed) {
        known += ", and " + std::to_string(curves.size() - named) + " more";
        break;
      }
      known += (known.empty() ? "" : ", ") + quoted(model);
      ++named;
    }
    Where{jobs_name, static_cast<std::size_t>(job.line)}.fail(
        "model: no curve for " + quoted(job.model) + " in the curves file (known: " + known + ")");
  }
}

}  // namespace gaptrain::sim
