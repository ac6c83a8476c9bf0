#include "support/instances.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "gaptrain/input_error.hpp"

namespace gaptrain::test_support {

namespace {

// Our own draws on top of the engine: std::uniform_*_distribution may differ between standard
// libraries, and instances must be reproducible from their seed everywhere.
int draw_int(std::mt19937_64& rng, int lo, int hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1U;
  return lo + static_cast<int>(rng() % span);
}

double draw_unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11U) * 0x1.0p-53;  // 53 random bits in [0, 1)
}

double draw_real(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * draw_unit(rng);
}

bool draw_bool(std::mt19937_64& rng, double probability) {
  return draw_unit(rng) < probability;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer: a second, independent seed
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

const std::vector<std::pair<std::string, ScalingCurve>>& real_curves() {
  static const std::vector<std::pair<std::string, ScalingCurve>> curves = [] {
    const std::map<std::string, ScalingCurve> by_name = load_curves();
    return std::vector<std::pair<std::string, ScalingCurve>>(by_name.begin(), by_name.end());
  }();
  return curves;
}

ScalingCurve random_small_curve(std::mt19937_64& rng, int max_nodes) {
  const int count = draw_int(rng, 1, std::min(max_nodes, 4));
  std::vector<int> all(static_cast<std::size_t>(max_nodes));
  for (int k = 0; k < max_nodes; ++k) all[static_cast<std::size_t>(k)] = k + 1;
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<int> counts(all.begin(), all.begin() + count);
  std::sort(counts.begin(), counts.end());

  // Half the curves increase (and may still bend up: non-concave), half are arbitrary.
  const bool increasing = draw_bool(rng, 0.5);
  std::vector<ScalingCurve::Point> points;
  double value = 0.0;
  for (int nodes : counts) {
    value = increasing ? value + draw_real(rng, 0.2, 3.0) : draw_real(rng, 0.2, 5.0);
    points.push_back({nodes, value});
  }
  return ScalingCurve(points);
}

std::string padded(char prefix, int index, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%c%0*d", prefix, width, index);
  return buffer;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace

std::string curves_csv_path() {
  return std::string(GAPTRAIN_SHARED_DATA_DIR) + "/models/curves.csv";
}

std::map<std::string, ScalingCurve> load_curves(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read scaling curves from " + path);
  std::map<std::string, std::vector<ScalingCurve::Point>> points;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1 || line.empty()) continue;  // header
    const std::string field = path + ":" + std::to_string(line_number);
    std::stringstream row(line);
    std::string model;
    std::string nodes;
    std::string rate;
    if (!std::getline(row, model, ',') || !std::getline(row, nodes, ',') ||
        !std::getline(row, rate)) {
      throw InputError(field, "expected model,nodes,samples_per_s");
    }
    try {
      std::size_t used_nodes = 0;
      std::size_t used_rate = 0;
      const int n = std::stoi(nodes, &used_nodes);
      const double r = std::stod(rate, &used_rate);
      if (used_nodes != nodes.size() || used_rate != rate.size()) throw std::invalid_argument("");
      points[model].push_back({n, r});
    } catch (const std::logic_error&) {
      throw InputError(field, "nodes must be an integer and samples_per_s a number");
    }
  }
  std::map<std::string, ScalingCurve> curves;
  for (auto& [model, model_points] : points) {
    try {
      curves.emplace(model, ScalingCurve(std::move(model_points)));
    } catch (const InputError& error) {
      throw error.under(path + ":" + model);
    }
  }
  return curves;
}

allocator::AllocationProblem random_problem(const InstanceParams& params) {
  if (params.nodes < 0 || params.jobs < 0 || params.max_nodes_cap < 1 || params.min_nodes_cap < 1) {
    throw std::invalid_argument("random_problem: counts must be >= 0 and caps >= 1");
  }
  std::mt19937_64 rng(params.seed);
  std::mt19937_64 hole_rng(mix(params.seed));

  allocator::AllocationProblem problem;
  problem.horizon_s = params.horizon_s;
  problem.objective = params.objective;
  problem.fair_p = params.fair_p;
  problem.solver = params.solver;

  std::vector<bool> pending;
  for (int j = 0; j < params.jobs; ++j) {
    allocator::AllocatableJob job;
    job.id = padded('j', j, 3);
    job.max_nodes = draw_int(rng, 1, params.max_nodes_cap);
    job.min_nodes = draw_int(rng, 1, std::min(params.min_nodes_cap, job.max_nodes));
    if (params.curves == CurveSource::real) {
      const auto& curves = real_curves();
      job.curve =
          curves[static_cast<std::size_t>(draw_int(rng, 0, static_cast<int>(curves.size()) - 1))]
              .second;
    } else {
      job.curve = random_small_curve(rng, job.max_nodes);
    }
    if (params.costs == CostSource::bftrainer) {
      job.up_cost_s = draw_real(rng, 17.0, 19.0);
      job.down_cost_s = draw_real(rng, 11.0, 13.0);
    } else {
      job.up_cost_s = draw_real(rng, 0.0, 30.0);
      job.down_cost_s = draw_real(rng, 0.0, 30.0);
    }
    job.weight = draw_real(rng, 0.5, 2.0);
    pending.push_back(draw_bool(rng, params.new_job_fraction));
    problem.jobs.push_back(std::move(job));
  }

  std::vector<int> order(static_cast<std::size_t>(params.nodes));
  for (int n = 0; n < params.nodes; ++n) order[static_cast<std::size_t>(n)] = n;
  std::shuffle(order.begin(), order.end(), rng);
  const int held = static_cast<int>(params.held_fraction * params.nodes + 0.5);
  const int node_width = params.nodes > 10000 ? 6 : params.nodes > 1000 ? 5 : 4;
  std::vector<int> holds(problem.jobs.size(), 0);
  std::vector<std::vector<std::size_t>> held_nodes(problem.jobs.size());
  for (std::size_t position = 0; position < order.size(); ++position) {
    allocator::AllocatableNode node;
    node.name = padded('n', order[position], node_width);
    if (static_cast<int>(position) < held) {
      std::vector<std::size_t> open;
      for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
        if (!pending[j] && holds[j] < problem.jobs[j].max_nodes) open.push_back(j);
      }
      if (!open.empty()) {
        const std::size_t j =
            open[static_cast<std::size_t>(draw_int(rng, 0, static_cast<int>(open.size()) - 1))];
        node.job = problem.jobs[j].id;
        ++holds[j];
        held_nodes[j].push_back(problem.nodes.size());
      }
    }
    problem.nodes.push_back(std::move(node));
  }
  // Held nodes came first in the shuffled order; shuffle again so idle and held interleave.
  std::shuffle(problem.nodes.begin(), problem.nodes.end(), rng);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::vector<std::string> mine;
    for (const allocator::AllocatableNode& node : problem.nodes) {
      if (node.job == problem.jobs[j].id) mine.push_back(node.name);
    }
    if (!mine.empty()) {
      problem.jobs[j].batch_host =
          mine[static_cast<std::size_t>(draw_int(rng, 0, static_cast<int>(mine.size()) - 1))];
    }
  }

  std::vector<double> distinct;
  for (int k = 0; k < params.distinct_hole_ends; ++k) {
    distinct.push_back(draw_real(hole_rng, params.hole_end_min_s, params.hole_end_max_s));
  }
  for (allocator::AllocatableNode& node : problem.nodes) {
    if (!draw_bool(hole_rng, params.hole_end_fraction)) continue;
    if (distinct.empty()) {
      node.hole_end_s = draw_real(hole_rng, params.hole_end_min_s, params.hole_end_max_s);
    } else {
      node.hole_end_s = distinct[static_cast<std::size_t>(
          draw_int(hole_rng, 0, static_cast<int>(distinct.size()) - 1))];
    }
  }
  return problem;
}

namespace {

// A random non-empty subset of [low, high]: each count with even odds, one drawn if none was.
std::vector<int> random_sizes(std::mt19937_64& rng, int low, int high) {
  std::vector<int> sizes;
  for (int k = low; k <= high; ++k) {
    if (rng() % 2U == 0U) sizes.push_back(k);
  }
  if (sizes.empty())
    sizes.push_back(low + static_cast<int>(rng() % static_cast<unsigned>(high - low + 1)));
  return sizes;
}

std::vector<int> sizes_by_rule(std::mt19937_64& rng, SizeRule rule,
                               const allocator::AllocatableJob& job, bool large) {
  std::vector<int> sizes;
  switch (rule) {
    case SizeRule::none: return {};
    case SizeRule::powers_of_two:
      for (int k = 1; k <= job.max_nodes; k *= 2) {
        if (k >= job.min_nodes) sizes.push_back(k);
      }
      break;
    case SizeRule::multiples: {
      const int group = large ? 2 << (rng() % 3U) : 2 + static_cast<int>(rng() % 3U);
      for (int k = group; k <= job.max_nodes; k += group) {
        if (k >= job.min_nodes) sizes.push_back(k);
      }
      break;
    }
    case SizeRule::listed: return random_sizes(rng, job.min_nodes, job.max_nodes);
    case SizeRule::mixed: {
      constexpr SizeRule kRules[] = {SizeRule::none, SizeRule::powers_of_two, SizeRule::multiples,
                                     SizeRule::listed};
      return sizes_by_rule(rng, kRules[rng() % 4U], job, large);
    }
  }
  return sizes.empty() ? random_sizes(rng, job.min_nodes, job.max_nodes) : sizes;
}

}  // namespace

void constrain_sizes(allocator::AllocationProblem& problem, SizeRule rule, std::uint64_t seed,
                     bool large) {
  std::mt19937_64 rng(seed * 2654435761U + 33U);
  for (allocator::AllocatableJob& job : problem.jobs)
    job.allowed_sizes = sizes_by_rule(rng, rule, job, large);
}

InstanceParams bench_grid_params(int nodes, int jobs, bool holes, int index) {
  InstanceParams params;
  params.seed = static_cast<std::uint64_t>(nodes) * 1'000'003U +
                static_cast<std::uint64_t>(jobs) * 1'009U + static_cast<std::uint64_t>(index);
  params.nodes = nodes;
  params.jobs = jobs;
  params.held_fraction = 0.5;
  params.new_job_fraction = 0.2;
  params.hole_end_fraction = holes ? 0.2 : 0.0;
  params.distinct_hole_ends = 3;
  params.hole_end_min_s = 10.0;
  params.hole_end_max_s = 590.0;
  params.horizon_s = 600.0;
  params.objective = allocator::Objective::throughput;
  params.curves = CurveSource::real;
  params.costs = CostSource::bftrainer;
  params.max_nodes_cap = 64;
  return params;
}

int distinct_availabilities(const allocator::AllocationProblem& problem) {
  std::set<double> values;
  for (const allocator::AllocatableNode& node : problem.nodes) {
    values.insert(node.hole_end_s ? std::min(*node.hole_end_s, problem.horizon_s)
                                  : problem.horizon_s);
  }
  return static_cast<int>(values.size());
}

std::string describe(const allocator::AllocationProblem& problem) {
  std::string out = "{\"horizon_s\": " + number(problem.horizon_s) + ", \"objective\": \"" +
                    std::string(to_string(problem.objective)) +
                    "\", \"fair_p\": " + number(problem.fair_p) +
                    ", \"solver\": {\"time_limit_s\": " + number(problem.solver.time_limit_s) +
                    ", \"mip_gap\": " + number(problem.solver.mip_gap) +
                    ", \"max_hole_classes\": " + std::to_string(problem.solver.max_hole_classes) +
                    "},\n \"nodes\": [";
  for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
    const allocator::AllocatableNode& node = problem.nodes[n];
    out += std::string(n == 0 ? "" : ",") + "\n  {\"name\": \"" + node.name +
           "\", \"job\": " + (node.job ? "\"" + *node.job + "\"" : "null") +
           ", \"hole_end_s\": " + (node.hole_end_s ? number(*node.hole_end_s) : "null") +
           (node.type.empty() ? "" : ", \"type\": \"" + node.type + "\"") + "}";
  }
  out += "],\n \"jobs\": [";
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const allocator::AllocatableJob& job = problem.jobs[j];
    out += std::string(j == 0 ? "" : ",") + "\n  {\"id\": \"" + job.id +
           "\", \"min_nodes\": " + std::to_string(job.min_nodes) +
           ", \"max_nodes\": " + std::to_string(job.max_nodes) +
           ", \"up_cost_s\": " + number(job.up_cost_s) +
           ", \"down_cost_s\": " + number(job.down_cost_s) + ", \"weight\": " + number(job.weight) +
           ", \"batch_host\": " + (job.batch_host ? "\"" + *job.batch_host + "\"" : "null");
    if (!job.allowed_sizes.empty()) {
      out += ", \"allowed_sizes\": [";
      for (std::size_t i = 0; i < job.allowed_sizes.size(); ++i) {
        out += std::string(i == 0 ? "" : ", ") + std::to_string(job.allowed_sizes[i]);
      }
      out += "]";
    }
    const auto points_of = [](const ScalingCurve& curve) {
      std::string text = "[";
      const auto& points = curve.points();
      for (std::size_t p = 0; p < points.size(); ++p) {
        text += std::string(p == 0 ? "" : ", ") + "[" + std::to_string(points[p].nodes) + ", " +
                number(points[p].samples_per_s) + "]";
      }
      return text + "]";
    };
    if (job.curves.empty()) {
      out += ", \"curve\": " + points_of(job.curve) + "}";
    } else {
      out += ", \"curves\": {";
      for (auto it = job.curves.begin(); it != job.curves.end(); ++it) {
        out += std::string(it == job.curves.begin() ? "" : ", ") + "\"" + it->first +
               "\": " + points_of(it->second);
      }
      out += "}}";
    }
  }
  out += "]}";
  return out;
}

}  // namespace gaptrain::test_support
