#include "option_parsing.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>

#include "gaptrain/bounds.hpp"
#include "gaptrain/parse_number.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/text_file.hpp"

namespace gaptrain::plugin {

namespace {

// Curves are a handful of measured points; a bigger file is a mistake (a data set passed by
// accident) and must not stall sbatch.
constexpr std::size_t kMaxCurveFileBytes = 1U << 20U;

std::string quoted(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out = "\"";
  for (const char c : text.substr(0, kMax)) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20U || byte == 0x7FU) ? '?' : c;  // keep the message on one line
  }
  return out + (text.size() > kMax ? "...\"" : "\"");
}

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// A number with blanks around it, as users type them in an option.
template <typename T>
bool parse_number(std::string_view text, T& value) {
  const std::optional<T> number = gaptrain::parse_number<T>(trim(text));
  if (number) value = *number;
  return number.has_value();
}

// A node type as slurm.conf spells a feature: a letter, then letters, digits, '_', '-', '.'.
bool is_type_name(std::string_view text) {
  if (text.empty() || text.size() > bounds::kMaxNameBytes ||
      std::isalpha(static_cast<unsigned char>(text.front())) == 0) {
    return false;
  }
  return std::ranges::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
  });
}

// Appends a (nodes, rate) point after checking it continues a valid curve (ScalingCurve's rule).
void add_point(Curve& curve, int nodes, double rate, const std::string& where) {
  const ScalingCurve::Point point{nodes, rate};
  if (auto problem = ScalingCurve::point_problem(curve.empty() ? 0 : curve.back().nodes, point)) {
    throw OptionError(where + ": " + *problem);
  }
  curve.push_back(point);
}

}  // namespace

Costs parse_costs(std::string_view text) {
  const std::string problem =
      "--elastic-cost: expected UP:DOWN seconds (non-negative numbers), got " + quoted(text);
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw OptionError(problem);
  Costs costs;
  if (!parse_number(text.substr(0, colon), costs.up_s) ||
      !parse_number(text.substr(colon + 1), costs.down_s) || !std::isfinite(costs.up_s) ||
      !std::isfinite(costs.down_s) || costs.up_s < 0.0 || costs.down_s < 0.0 ||
      costs.up_s > bounds::kMaxSeconds || costs.down_s > bounds::kMaxSeconds) {
    throw OptionError(problem);
  }
  return costs;
}

double parse_notice(std::string_view text) {
  double seconds = 0.0;
  if (!parse_number(text, seconds) || !(seconds >= 0.0 && seconds <= protocol::kMaxNoticeS)) {
    throw OptionError("--elastic-notice: expected seconds from 0 to 86400 (a day), got " +
                      quoted(text));
  }
  return seconds;
}

BatchRange parse_batch_range(std::string_view text) {
  const std::optional<BatchRange> range = protocol::batch_range_from_text(trim(text));
  if (!range) {
    throw OptionError(
        "--elastic-batch: expected M0:MAX or M0:MAX:PERNODE, whole numbers of samples with "
        "1 <= M0 <= MAX and PERNODE >= 1 (e.g. 128:4096:256), got " +
        quoted(text));
  }
  if (auto problem = protocol::batch_range_problem(*range)) {
    throw OptionError("--elastic-batch: " + *problem +
                      " (write M0:MAX[:PERNODE], e.g. 128:4096:256)");
  }
  return *range;
}

double parse_noise_scale(std::string_view text) {
  double phi = 0.0;
  if (!parse_number(text, phi) || protocol::noise_scale_problem(phi)) {
    throw OptionError(
        "--elastic-noise-scale: expected the gradient noise scale in samples at M0, a number "
        "from 0 to 1e15 (leave it out to have it learned), got " +
        quoted(text));
  }
  return phi;
}

NodeSizes parse_node_range(std::string_view text) {
  const std::optional<NodeSizes> sizes = node_sizes_from_text(trim(text));
  if (!sizes || sizes->min < 1 || sizes->max < sizes->min) {
    throw OptionError(
        "--elastic: expected a node range MIN-MAX (1 <= MIN <= MAX), MIN-MAX:STEP or a list of "
        "counts (2,4,8), got " +
        quoted(text));
  }
  const NodeSizes& range = *sizes;
  // No job is larger than its cluster (the daemon reads a maximum above the partition's node
  // count as all of it), so a count beyond any cluster is a typo, refused before Slurm sees it.
  if (range.max > bounds::kMaxNodes) {
    throw OptionError("--elastic: MAX " + std::to_string(range.max) +
                      " is more nodes than any cluster has (at most " +
                      std::to_string(bounds::kMaxNodes) +
                      "): give at most the elastic partition's node count");
  }
  if (const std::optional<std::string> problem = node_sizes_problem(range)) {
    throw OptionError("--elastic: " + *problem);
  }
  return range;
}

TypedCurves parse_curve_csv(std::string_view text, std::string_view origin) {
  TypedCurves curves;
  std::size_t line_number = 0;
  bool seen_content = false;
  std::optional<bool> typed;  // whether the lines have a type column, from the first
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string where =
        "--elastic-curve: " + std::string(origin) + " line " + std::to_string(line_number);
    const bool first = !seen_content;
    seen_content = true;
    std::vector<std::string_view> fields;
    for (std::string_view rest = line;;) {
      const std::size_t comma = rest.find(',');
      fields.push_back(trim(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    // "type,nodes,samples_per_s" (a curve per node type) or "nodes,samples_per_s".
    const bool three = fields.size() == 3 && is_type_name(fields[0]);
    int nodes = 0;
    double rate = 0.0;
    const std::size_t at = three ? 1 : 0;
    const bool numeric = (three || fields.size() == 2) && parse_number(fields[at], nodes) &&
                         parse_number(fields[at + 1], rate);
    const char* expected =
        typed.value_or(three) ? "\"type,nodes,samples_per_s\"" : "\"nodes,samples_per_s\"";
    if (!numeric) {
      // A first line whose node count does not start with a digit is a header such as
      // "nodes,samples_per_s" or "type,nodes,samples_per_s".
      const std::string_view count = fields.size() >= 2 ? fields[fields.size() - 2] : line;
      if (first && !count.empty() && !(count.front() >= '0' && count.front() <= '9') &&
          count.front() != '-') {
        typed = fields.size() == 3;
        continue;
      }
      throw OptionError(where + ": expected " + expected + ", got " + quoted(line));
    }
    if (typed && *typed != three) {
      throw OptionError(where + ": expected " + expected + " as on the lines before, got " +
                        quoted(line));
    }
    typed = three;
    add_point(curves[three ? std::string(fields[0]) : std::string()], nodes, rate, where);
  }
  if (curves.empty()) {
    throw OptionError("--elastic-curve: " + std::string(origin) +
                      " has no \"nodes,samples_per_s\" lines");
  }
  return curves;
}

TypedCurves read_curve_file(const std::string& path) {
  std::string text;
  try {
    // Regular files only, opened without blocking: a named pipe must not hang the user's sbatch.
    text = read_regular_file(path, kMaxCurveFileBytes);
  } catch (const FileRefused& e) {
    if (e.too_large()) throw OptionError("--elastic-curve: " + quoted(path) + " is " + e.reason());
    throw OptionError("--elastic-curve: cannot read " + quoted(path) + ": " + e.reason());
  }
  return parse_curve_csv(text, path);
}

std::string curve_to_compact(const Curve& curve) {
  std::string out;
  for (const auto& [nodes, rate] : curve) {
    if (!out.empty()) out += ',';
    out += std::to_string(nodes);
    out += ':';
    char buffer[64];
    // Shortest text that reads back as the same double.
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, rate);
    out.append(buffer, result.ptr);
  }
  return out;
}

Curve curve_from_compact(std::string_view text) {
  Curve curve;
  std::size_t index = 0;
  while (!text.empty()) {
    const std::size_t end = text.find(',');
    const std::string_view item = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::string where = "GAPTRAIN_CURVE point " + std::to_string(index++);
    const std::size_t colon = item.find(':');
    int nodes = 0;
    double rate = 0.0;
    if (colon == std::string_view::npos || !parse_number(item.substr(0, colon), nodes) ||
        !parse_number(item.substr(colon + 1), rate)) {
      throw OptionError(where + ": expected NODES:RATE, got " + quoted(item));
    }
    add_point(curve, nodes, rate, where);
  }
  return curve;
}

std::string curves_to_compact(const TypedCurves& curves) {
  if (curves.size() == 1 && curves.begin()->first.empty())
    return curve_to_compact(curves.begin()->second);
  std::string out;
  for (const auto& [type, curve] : curves) {
    if (!out.empty()) out += ';';
    out += type + '=' + curve_to_compact(curve);
  }
  return out;
}

TypedCurves curves_from_compact(std::string_view text) {
  TypedCurves curves;
  if (text.find('=') == std::string_view::npos) {
    curves[""] = curve_from_compact(text);
    return curves;
  }
  while (!text.empty()) {
    const std::size_t end = text.find(';');
    const std::string_view item = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::size_t equals = item.find('=');
    const std::string_view type = item.substr(0, equals);
    if (equals == std::string_view::npos || !is_type_name(type) ||
        curves.contains(std::string(type))) {
      throw OptionError("GAPTRAIN_CURVE: expected TYPE=NODES:RATE,... once per type, got " +
                        quoted(item));
    }
    curves[std::string(type)] = curve_from_compact(item.substr(equals + 1));
  }
  return curves;
}

}  // namespace gaptrain::plugin
