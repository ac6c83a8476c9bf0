#include "gaptrain/node_sizes.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "gaptrain/bounds.hpp"
#include "gaptrain/parse_number.hpp"

namespace gaptrain {

namespace {

// A whole number of digits alone (no sign, no blank); a count too large for an int reads as
// the largest int, so that it is told as too many nodes rather than as a typo.
std::optional<long long> digits(std::string_view text) {
  if (text.empty() || text.size() > 12 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::min<long long>(parse_number<long long>(text).value_or(0),
                             std::numeric_limits<int>::max());
}

}  // namespace

std::optional<NodeSizes> node_sizes_from_text(std::string_view text) {
  std::set<long long> counts;
  bool single_range = true;  // "A-B" alone: every count, however many
  std::optional<std::pair<long long, long long>> range;
  std::size_t items = 0;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    ++items;
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      const std::optional<long long> n = digits(item);
      if (!n) return std::nullopt;
      counts.insert(*n);
      single_range = false;
    } else {
      const std::size_t colon = item.find(':', dash);
      const std::optional<long long> first = digits(item.substr(0, dash));
      const std::optional<long long> last =
          digits(item.substr(dash + 1, colon == std::string_view::npos ? colon : colon - dash - 1));
      const std::optional<long long> step =
          colon == std::string_view::npos ? 1LL : digits(item.substr(colon + 1));
      if (!first || !last || !step || *step < 1) return std::nullopt;
      if (*step != 1) single_range = false;
      range = {*first, *last};
      // Only as far as a job may list: a longer list is refused below without being built.
      for (long long n = *first; n <= *last && static_cast<int>(counts.size()) <= kMaxAllowedSizes;
           n += *step) {
        counts.insert(n);
      }
    }
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  NodeSizes sizes;
  if (single_range && items == 1) {  // "A-B": min and max as written, checked by the caller
    sizes.min = static_cast<int>(range->first);
    sizes.max = static_cast<int>(range->second);
    return sizes;
  }
  if (counts.empty()) {  // "5-2:2" names no count: node_sizes_problem() says so
    sizes.min = 0;
    return sizes;
  }
  sizes.min = static_cast<int>(*counts.begin());
  sizes.max = static_cast<int>(*counts.rbegin());
  if (static_cast<long long>(counts.size()) != *counts.rbegin() - *counts.begin() + 1) {
    for (const long long n : counts) sizes.allowed.push_back(static_cast<int>(n));
  }
  return sizes;
}

std::optional<std::string> node_sizes_problem(const NodeSizes& sizes) {
  if (sizes.min < 1 || sizes.max < sizes.min) {
    return "expected node counts from 1 up (MIN-MAX with 1 <= MIN <= MAX), got " +
           std::to_string(sizes.min) + "-" + std::to_string(sizes.max);
  }
  if (sizes.max > bounds::kMaxNodes) {
    return std::to_string(sizes.max) + " nodes is more than any cluster has (at most " +
           std::to_string(bounds::kMaxNodes) + ")";
  }
  if (sizes.allowed.empty()) return std::nullopt;
  if (static_cast<int>(sizes.allowed.size()) > kMaxAllowedSizes) {
    return "more than " + std::to_string(kMaxAllowedSizes) +
           " allowed node counts: list fewer, or allow every count (MIN-MAX)";
  }
  if (!std::is_sorted(sizes.allowed.begin(), sizes.allowed.end()) ||
      std::adjacent_find(sizes.allowed.begin(), sizes.allowed.end()) != sizes.allowed.end()) {
    return "the allowed node counts must be listed once each, smallest first";
  }
  if (sizes.allowed.front() != sizes.min || sizes.allowed.back() != sizes.max) {
    return "the allowed node counts must run from MIN (" + std::to_string(sizes.min) +
           ") to MAX (" + std::to_string(sizes.max) + ")";
  }
  return std::nullopt;
}

std::string to_text(const NodeSizes& sizes) {
  if (sizes.allowed.empty()) {
    return sizes.min == sizes.max ? std::to_string(sizes.min)
                                  : std::to_string(sizes.min) + "-" + std::to_string(sizes.max);
  }
  std::string text;
  const std::vector<int>& a = sizes.allowed;
  for (std::size_t i = 0; i < a.size();) {
    // The longest run from a[i] with one step: three or more counts are written A-B:S.
    std::size_t end = i + 1;  // one past the run
    if (i + 2 < a.size()) {
      const int step = a[i + 1] - a[i];
      end = i + 2;
      while (end < a.size() && a[end] - a[end - 1] == step) ++end;
      if (end - i < 3) end = i + 1;
    }
    if (!text.empty()) text += ",";
    if (end - i >= 3) {
      const int step = a[i + 1] - a[i];
      text += std::to_string(a[i]) + "-" + std::to_string(a[end - 1]);
      if (step != 1) text += ":" + std::to_string(step);
    } else {
      text += std::to_string(a[i]);
    }
    i = end;
  }
  return text;
}

bool allows(const NodeSizes& sizes, int nodes) {
  if (nodes < sizes.min || nodes > sizes.max) return false;
  return sizes.allowed.empty() ||
         std::binary_search(sizes.allowed.begin(), sizes.allowed.end(), nodes);
}

int largest_allowed_at_most(const NodeSizes& sizes, int nodes) {
  if (nodes < sizes.min) return 0;
  if (sizes.allowed.empty()) return std::min(nodes, sizes.max);
  const auto above = std::upper_bound(sizes.allowed.begin(), sizes.allowed.end(), nodes);
  return above == sizes.allowed.begin() ? 0 : *std::prev(above);
}

}  // namespace gaptrain
