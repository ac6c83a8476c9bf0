#include "simulator/summary_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

namespace gaptrain::sim {

namespace {

// Wide enough for the longest label, so every value starts in one column.
constexpr int kLabelWidth = 16;

[[gnu::format(printf, 1, 2)]] std::string printed(const char* format, ...) {
  std::array<char, 128> buffer{};
  va_list values;
  va_start(values, format);
  std::vsnprintf(buffer.data(), buffer.size(), format, values);
  va_end(values);
  return buffer.data();
}

std::string count_text(long long n) {
  return grouped(static_cast<double>(n), 0);
}

// "1 start", "3 starts".
std::string counted(long long n, std::string_view noun) {
  return count_text(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string node_hours_line(const SimSummary& s, int nodes) {
  const double total_h = nodes * s.simulated_s / 3600.0;
  const double hole_h = s.hole_node_seconds / 3600.0;
  const double elastic_h = s.allocated_node_seconds / 3600.0;
  // The regular workload holds what the holes leave; idle is the hole node-time no job held.
  const double regular_h = std::max(0.0, total_h - hole_h);
  const double idle_h = std::max(0.0, hole_h - elastic_h);
  return "regular " + grouped(regular_h, 1) + ", elastic " + grouped(elastic_h, 1) + ", idle " +
         grouped(idle_h, 1) + " (of " + grouped(total_h, 1) + ")";
}

std::string waits_line(const SimSummary& s) {
  std::string line = counted(s.reclaims, "node") + " taken back";
  // A satellite Slurm preempted (satellite_qos) held no regular job up.
  if (s.preemptions > 0) line += " (" + count_text(s.preemptions) + " preempted by Slurm at once)";
  line += "; ";
  if (s.regular_waits == 0) return line + "no regular job waited for a node";
  return line + "regular jobs waited " + counted(s.regular_waits, "time") + " (p50 " +
         duration_text(s.regular_wait_s_p50) + ", p99 " + duration_text(s.regular_wait_s_p99) +
         ", max " + duration_text(s.regular_wait_s_max) + ")";
}

std::string solver_line(const SimSummary& s) {
  std::string line = counted(s.solves, "solve") + " in " + counted(s.cycles, "decision");
  if (s.solves == 0) return line;
  return line + ": p50 " + printed("%.3g", s.solver_ms_p50) + " ms, p99 " +
         printed("%.3g", s.solver_ms_p99) + " ms, max " + printed("%.3g", s.solver_ms_max) + " ms";
}

}  // namespace

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds)) return "unknown";
  const double magnitude = std::abs(seconds);
  // One decimal place at most, and none where it would read "2.0": %.3g keeps 3 digits.
  if (magnitude < 120.0) return printed("%.3g s", seconds);
  if (magnitude < 2.0 * 3600.0) return printed("%.3g min", seconds / 60.0);
  if (magnitude < 2.0 * 86400.0) return printed("%.3g h", seconds / 3600.0);
  return printed("%.4g days", seconds / 86400.0);
}

std::string grouped(double value, int decimals) {
  if (!std::isfinite(value)) return printed("%f", value);
  std::string text = printed("%.*f", decimals, std::abs(value));
  const std::size_t point = text.find('.');
  std::size_t digits = point == std::string::npos ? text.size() : point;
  while (digits > 3) {
    digits -= 3;
    text.insert(digits, ",");
  }
  // "-0" and "-0.0" read as a sign error; a value that rounds to zero has none.
  const bool rounds_to_zero = text.find_first_not_of("0.,") == std::string::npos;
  return (value < 0.0 && !rounds_to_zero ? "-" : "") + text;
}

std::string summary_table(const SimSummary& s, const RunFacts& facts,
                          const std::optional<OracleFacts>& oracle) {
  std::vector<std::pair<std::string_view, std::string>> rows;
  rows.emplace_back("nodes", grouped(facts.nodes, 0));
  rows.emplace_back("window", duration_text(s.simulated_s) + " from " +
                                  duration_text(facts.start_s) + " into the trace (" +
                                  grouped(s.simulated_s, 0) + " s)");
  rows.emplace_back("useful samples",
                    printed("%.6g, efficiency %.3f", s.useful_samples, s.efficiency) + " (of " +
                        printed("%.6g", s.ideal_samples) + " with free rescales)");
  if (!facts.batch.empty()) {
    const double worth = s.useful_samples > 0.0 ? s.progress / s.useful_samples : 0.0;
    rows.emplace_back("progress", printed("%.6g", s.progress) +
                                      " samples at the tuned batches (a sample worth " +
                                      printed("%.3f", worth) + "; batch " + facts.batch + ")");
  }
  if (oracle) {
    const double fraction = oracle->samples > 0.0 ? s.useful_samples / oracle->samples : 0.0;
    rows.emplace_back("oracle bound", printed("%.6g", oracle->samples) + " (" + oracle->method +
                                          "): this run trained " + printed("%.3f", fraction) +
                                          " of it");
  } else {
    rows.emplace_back("oracle bound", "not computed (--oracle)");
  }
  rows.emplace_back("node-hours", node_hours_line(s, facts.nodes));
  rows.emplace_back("utilization",
                    printed("%.3f of the hole node-time held by elastic jobs; usable %.3f",
                            s.utilization, s.usable_utilization));
  rows.emplace_back("jobs",
                    count_text(s.jobs_submitted) + " submitted, " + count_text(s.jobs_completed) +
                        " completed, " + count_text(s.jobs_submitted - s.jobs_completed) +
                        " unfinished at the window's end" +
                        (s.jobs_completed > 0 ? "; completed in " + duration_text(s.mean_jct_s) +
                                                    " on average, p90 " + duration_text(s.p90_jct_s)
                                              : "") +
                        (s.makespan_s > 0.0 ? "; all done in " + duration_text(s.makespan_s) : ""));
  rows.emplace_back("resizes", count_text(s.rescales) + ": " + counted(s.rescale_starts, "start") +
                                   ", " + counted(s.rescale_grows, "grow") + ", " +
                                   counted(s.rescale_shrinks, "shrink"));
  rows.emplace_back("reclaims", waits_line(s));
  rows.emplace_back("requeues", count_text(s.requeues) + " (jobs back in the queue); " +
                                    counted(s.pauses, "pause") +
                                    " (jobs at home left with no node)");
  rows.emplace_back("solver", solver_line(s));
  rows.emplace_back("wall time", duration_text(facts.wall_s));

  std::string out = "gaptrain simulate: " + facts.trace + ", policy " + facts.policy + " (" +
                    facts.settings + ")" + (facts.learn ? ", curves learned" : "") + "\n";
  for (const auto& [label, value] : rows) {
    std::string line(label);
    line.resize(std::max<std::size_t>(line.size() + 1, kLabelWidth), ' ');
    out += line + value + "\n";
  }
  out += kUsableNote;
  return out;
}

}  // namespace gaptrain::sim
