#include "job_mark.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "gaptrain/parse_number.hpp"

namespace gaptrain::core {
namespace {

constexpr std::string_view kPrefix = "gaptrain:";

std::optional<std::uint32_t> number(std::string_view text) {
  return parse_number<std::uint32_t>(text);
}

// The words of `text` (split at spaces), in order.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto space = text.find(' ');
    if (space != 0) out.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return out;
}

}  // namespace

JobMark read_job_mark(std::string_view admin_comment) {
  JobMark mark;
  for (std::string_view word : words(admin_comment)) {
    if (!word.starts_with(kPrefix)) continue;
    word.remove_prefix(kPrefix.size());
    while (!word.empty()) {
      const auto comma = word.find(',');
      const std::string_view field = word.substr(0, comma);
      word = comma == std::string_view::npos ? std::string_view() : word.substr(comma + 1);
      if (field.starts_with("limit=")) {
        mark.time_limit_minutes = number(field.substr(6));
      } else if (field.starts_with("nodes=")) {
        const std::string_view range = field.substr(6);
        const auto dash = range.find('-');
        if (dash == std::string_view::npos) continue;
        const auto low = number(range.substr(0, dash));
        const auto high = number(range.substr(dash + 1));
        if (!low || !high || *low < 1 || *high < *low) continue;
        mark.min_nodes = low;
        mark.max_nodes = high;
      } else if (field.starts_with("trains_in=")) {
        mark.trains_in = std::string(field.substr(10));
      } else if (field.starts_with("tres=")) {
        mark.tres_per_node = std::string(field.substr(5));
        std::ranges::replace(mark.tres_per_node, '+', ',');
      }
    }
  }
  return mark;
}

std::string with_job_mark(std::string_view admin_comment, const JobMark& mark) {
  std::string out;
  for (const std::string_view word : words(admin_comment)) {
    if (word.starts_with(kPrefix)) continue;
    out.append(word).push_back(' ');
  }
  std::string fields;
  if (mark.time_limit_minutes) fields += "limit=" + std::to_string(*mark.time_limit_minutes);
  if (mark.min_nodes && mark.max_nodes) {
    if (!fields.empty()) fields += ',';
    fields += "nodes=" + std::to_string(*mark.min_nodes) + "-" + std::to_string(*mark.max_nodes);
  }
  if (!mark.trains_in.empty()) {
    if (!fields.empty()) fields += ',';
    fields += "trains_in=" + mark.trains_in;
  }
  if (!mark.tres_per_node.empty()) {
    std::string tres = mark.tres_per_node;
    std::ranges::replace(tres, ',', '+');
    if (!fields.empty()) fields += ',';
    fields += "tres=" + tres;
  }
  if (fields.empty()) {
    if (!out.empty()) out.pop_back();
    return out;
  }
  return out + std::string(kPrefix) + fields;
}

JobMark admission_mark(const Job& job) {
  JobMark mark = read_job_mark(job.admin_comment);
  if (!mark.time_limit_minutes) mark.time_limit_minutes = job.time_limit_minutes;
  if (!mark.min_nodes && job.min_nodes >= 1 && job.max_nodes >= job.min_nodes) {
    mark.min_nodes = job.min_nodes;
    mark.max_nodes = job.max_nodes;
  }
  return mark;
}

}  // namespace gaptrain::core
