// The SPANK plugin's parsers (plugin/option_parsing.cpp, plugin/plugin_args.cpp): the whole input
// goes to each of parse_costs() (--elastic-cost), parse_node_range() (--elastic),
// parse_batch_range()
// (--elastic-batch), parse_noise_scale() (--elastic-noise-scale), parse_curve_csv()
// (an --elastic-curve file), curve_from_compact() (GAPTRAIN_CURVE), and, split at whitespace
// as plugstack.conf splits them, to parse_plugin_args(). Bad options must be an
// plugin::OptionError; a bad plugin argument is one "gaptrain: " refusal line; what is accepted
// must keep the promises of option_parsing.hpp / plugin_args.hpp, and a curve must survive
// curve_to_compact() exactly.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "option_parsing.hpp"
#include "plugin_args.hpp"

namespace plugin = gaptrain::plugin;
using gaptrain::fuzz::check;
using gaptrain::fuzz::must_succeed;

namespace {

void check_curve(const plugin::Curve& curve) {
  int previous = 0;
  for (const auto& [nodes, rate] : curve) {
    check(nodes > previous, "curve node counts not increasing from 1");
    check(std::isfinite(rate) && rate > 0.0, "curve rate not a positive number");
    previous = nodes;
  }
  const plugin::Curve again =
      must_succeed([&] { return plugin::curve_from_compact(plugin::curve_to_compact(curve)); },
                   "curve_from_compact(curve_to_compact(curve)) failed");
  check(again == curve, "the curve does not survive curve_to_compact() exactly");
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t pos = text.find_first_not_of(" \t\n");
  while (pos != std::string_view::npos) {
    const std::size_t end = text.find_first_of(" \t\n", pos);
    words.push_back(text.substr(pos, end == std::string_view::npos ? end : end - pos));
    pos = text.find_first_not_of(" \t\n", end);
  }
  return words;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);

  try {
    const plugin::Costs costs = plugin::parse_costs(text);
    check(std::isfinite(costs.up_s) && costs.up_s >= 0.0 && std::isfinite(costs.down_s) &&
              costs.down_s >= 0.0,
          "--elastic-cost accepted a negative or non-finite cost");
  } catch (const plugin::OptionError&) {
  }

  try {
    const gaptrain::NodeSizes range = plugin::parse_node_range(text);
    check(range.min >= 1 && range.min <= range.max, "--elastic accepted a range not 1<=MIN<=MAX");
    check(!gaptrain::node_sizes_problem(range), "--elastic accepted counts node_sizes refuses");
  } catch (const plugin::OptionError&) {
  }

  try {
    const gaptrain::BatchRange batch = plugin::parse_batch_range(text);
    check(batch.tuned >= 1 && batch.tuned <= batch.max && batch.max_per_node >= 0,
          "--elastic-batch accepted a range not 1<=M0<=MAX, PERNODE>=0");
  } catch (const plugin::OptionError&) {
  }

  try {
    const double phi = plugin::parse_noise_scale(text);
    check(std::isfinite(phi) && phi >= 0.0, "--elastic-noise-scale accepted a negative value");
  } catch (const plugin::OptionError&) {
  }

  try {
    const plugin::TypedCurves curves = plugin::parse_curve_csv(text, "fuzz.csv");
    check(!curves.empty(), "parse_curve_csv() accepted no points");
    check(plugin::curves_from_compact(plugin::curves_to_compact(curves)) == curves,
          "the curves do not survive curves_to_compact() exactly");
    for (const auto& [type, curve] : curves) check_curve(curve);
  } catch (const plugin::OptionError&) {
  }

  try {
    check_curve(plugin::curve_from_compact(text));
  } catch (const plugin::OptionError&) {
  }

  const plugin::ParsedArgs parsed = plugin::parse_plugin_args(split_whitespace(text));
  if (!parsed.error.empty()) {
    check(parsed.error.starts_with("gaptrain: ") && parsed.error.find('\n') == std::string::npos,
          "a refused plugin argument is not one gaptrain: line");
    return 0;
  }
  const long timeout_ms = static_cast<long>(parsed.config.timeout.count());
  check(timeout_ms >= 1 && timeout_ms <= plugin::kMaxTimeoutMs, "timeout_ms out of bounds");
  if (parsed.config.controller) {
    check(!parsed.config.controller->host.empty() && parsed.config.controller->port != 0,
          "controller= accepted an empty host or port 0");
  }
  return 0;
}
