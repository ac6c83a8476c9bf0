#include "core/config.hpp"

#include <arpa/inet.h>
#include <json/json.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/parse_number.hpp"

namespace gaptrain::core {

namespace {

std::string known_keys() {
  std::string list;
  for (const Setting& setting : daemon_settings()) {
    if (!list.empty()) list += ", ";
    list += setting.key;
  }
  return list;
}

// The readers of one setting: the kit's "KEY: expected WHAT, got VALUE", WHAT saying what to
// give (and, for a number, the default that removing the key keeps).
std::string require_string(const Json::Value& value, std::string_view key, std::string_view hint) {
  if (!value.isString()) {
    throw_json_type_error(std::string(key), "a string, " + std::string(hint), value);
  }
  return value.asString();
}

// A number within the setting's bounds; `unit` ("seconds", "a number") for the error.
double require_number(const Json::Value& value, const NumberSetting& setting,
                      std::string_view unit) {
  std::ostringstream expected;
  expected << unit << " from " << setting.min << " to " << setting.max
           << " (remove the key for the default " << std::fixed << std::setprecision(1)
           << setting.default_value << ")";
  if (!value.isNumeric() || !std::isfinite(value.asDouble()) || value.asDouble() < setting.min ||
      value.asDouble() > setting.max) {
    throw_json_type_error(std::string(setting.key), expected.str(), value);
  }
  return value.asDouble();
}

// A whole number within the setting's bounds.
int require_count(const Json::Value& value, const NumberSetting& setting) {
  const auto min = static_cast<int>(setting.min);
  const auto max = static_cast<int>(setting.max);
  const std::string expected = "a whole number from " + std::to_string(min) + " to " +
                               std::to_string(max) + " (remove the key for the default " +
                               std::to_string(static_cast<int>(setting.default_value)) + ")";
  const double count = value.isNumeric() ? value.asDouble() : std::nan("");
  if (!std::isfinite(count) || count != std::floor(count) || count < min || count > max) {
    throw_json_type_error(std::string(setting.key), expected, value);
  }
  return static_cast<int>(count);
}

bool is_numeric_host(const std::string& host) {
  // inet_pton reads up to the first NUL: "127.0.0.1\0junk" is not an address.
  if (host.find('\0') != std::string::npos) return false;
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

static_assert(kFairP.min == allocator::kMinFairP && kFairP.max == allocator::kMaxFairP,
              "gaptraind.json's fair_p takes what the allocator accepts");

allocator::Objective parse_objective(const std::string& name) {
  if (name == "throughput") return allocator::Objective::throughput;
  if (name == "speedup") return allocator::Objective::speedup;
  if (name == "fair") return allocator::Objective::fair;
  throw InputError("objective", "\"" + name +
                                    "\" is not an objective: use \"throughput\", \"speedup\" "
                                    "or \"fair\"");
}

// {"ACCOUNT": WEIGHT, ...}: a positive, finite weight for each account named.
std::vector<std::pair<std::string, double>> parse_account_weights(const Json::Value& value) {
  constexpr const char* kHint =
      "give {\"ACCOUNT\": WEIGHT, ...} with weights above 0, e.g. "
      "{\"physics\": 2.0}, or remove the key (every account weighs 1)";
  if (!value.isObject())
    throw InputError("account_weights", std::string("must be an object: ") + kHint);
  std::vector<std::pair<std::string, double>> weights;
  for (const std::string& account : value.getMemberNames()) {
    const Json::Value& weight = value[account];
    if (account.empty() || !weight.isNumeric() || !std::isfinite(weight.asDouble()) ||
        weight.asDouble() <= 0.0 || weight.asDouble() > 1e6) {
      throw InputError("account_weights",
                       "account \"" + account + "\" has no weight in (0, 1000000]: " + kHint);
    }
    weights.emplace_back(account, weight.asDouble());
  }
  return weights;
}

// ["a100", "v100"]: names as slurm.conf spells features, once each.
std::vector<std::string> parse_node_types(const Json::Value& value) {
  constexpr const char* kHint =
      "give a list of the feature or GRES type names that mark node types, e.g. "
      "[\"a100\", \"v100\"], or [] for one kind of node";
  if (!value.isArray()) throw InputError("node_types", std::string("must be a list: ") + kHint);
  std::vector<std::string> names;
  for (const Json::Value& name : value) {
    const std::string text = name.isString() ? name.asString() : std::string();
    const bool token = !text.empty() && text.size() <= bounds::kMaxNameBytes &&
                       std::ranges::all_of(text, [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
                                c == '-' || c == '.';
                       });
    if (!token) {
      throw InputError("node_types", "has " + describe_json(name) +
                                         ", not a feature name (letters, digits, _ - .): " + kHint);
    }
    if (std::ranges::find(names, text) != names.end()) {
      throw InputError("node_types", "names \"" + text + "\" twice: " + kHint);
    }
    names.push_back(text);
  }
  return names;
}

}  // namespace

ListenAddress parse_listen(std::string_view text) {
  constexpr const char* kHint =
      "give \"HOST:PORT\" with a numeric address, e.g. \"127.0.0.1:6830\" or \"[::1]:6830\"";
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) throw InputError("listen", kHint);
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) throw InputError("listen", kHint);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  ListenAddress address;
  address.host = std::string(host);
  if (address.host.empty() || !is_numeric_host(address.host)) {
    throw InputError("listen", "\"" + std::string(text) + "\" has no numeric address: " + kHint);
  }
  const std::optional<unsigned> value = parse_number<unsigned>(port);
  if (!value || *value == 0 || *value > 65535) {
    throw InputError("listen", "\"" + std::string(text) + "\" has no port in 1..65535: " + kHint);
  }
  address.port = static_cast<std::uint16_t>(*value);
  return address;
}

std::string to_string(const ListenAddress& address) {
  const bool v6 = address.host.find(':') != std::string::npos;
  return (v6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
  }
  return "info";
}

DaemonConfig parse_config(std::string_view json_text) {
  Json::Value root;
  try {
    root = parse_strict_json(json_text);
  } catch (const InputError& e) {
    throw InputError("", std::string(e.what()) + ": fix the syntax");
  }
  if (!root.isObject()) throw InputError("", "must be a JSON object of settings, e.g. {}");
  for (const std::string& key : root.getMemberNames()) {
    if (find_setting(key) == nullptr) {
      throw InputError(
          key, "unknown key: remove it or fix its spelling (known keys: " + known_keys() + ")");
    }
  }

  DaemonConfig config;
  if (const Json::Value* value = json_member(root, "listen")) {
    config.listen = parse_listen(require_string(*value, "listen", "\"HOST:PORT\""));
  }
  if (const Json::Value* value = json_member(root, "munge_socket")) {
    config.munge_socket = require_string(*value, "munge_socket",
                                         "a path to munged's socket, or \"\" for the default");
  }
  const auto seconds = [&](const NumberSetting& setting, double& field) {
    if (const Json::Value* value = json_member(root, setting.key)) {
      field = require_number(*value, setting, "seconds");
    }
  };
  seconds(kPollIntervalS, config.poll_interval_s);
  seconds(kWatchIntervalS, config.watch_interval_s);
  seconds(kLeaseS, config.lease_s);
  seconds(kHorizonS, config.horizon_s);
  seconds(kDrainGraceS, config.drain_grace_s);
  seconds(kReclaimGraceS, config.reclaim_grace_s);
  seconds(kMaxNoticeS, config.max_notice_s);
  if (const Json::Value* value = json_member(root, "metrics_listen")) {
    const std::string text = require_string(
        *value, "metrics_listen", "\"HOST:PORT\" to serve Prometheus metrics on, or \"\" for none");
    if (text.empty()) {
      config.metrics_listen.reset();
    } else {
      try {
        config.metrics_listen = parse_listen(text);
      } catch (const InputError& e) {
        // parse_listen names "listen"; the same problem, under this key.
        const std::string problem = e.what();
        throw InputError("metrics_listen", problem.substr(problem.find(": ") + 2));
      }
    }
  }
  if (const Json::Value* value = json_member(root, "state_file")) {
    config.state_file = require_string(*value, "state_file",
                                       "an absolute path for gaptraind's state, or \"\" for none");
    if (!config.state_file.empty() && config.state_file.front() != '/') {
      throw InputError("state_file", "must be an absolute path (or \"\" for none), got \"" +
                                         config.state_file + "\"");
    }
  }
  if (const Json::Value* value = json_member(root, kIdleReserveNodes.key)) {
    config.idle_reserve_nodes = require_count(*value, kIdleReserveNodes);
  }
  for (const auto& [setting, field] :
       {std::pair{&kMaxConnections, &config.max_connections},
        std::pair{&kMaxConnectionsPerPeer, &config.max_connections_per_peer},
        std::pair{&kJobHistory, &config.job_history},
        std::pair{&kJobHistoryPoints, &config.job_history_points}}) {
    if (const Json::Value* value = json_member(root, setting->key)) {
      *field = require_count(*value, *setting);
    }
  }
  for (const auto& [setting, field] :
       {std::pair{&kMaxRunningPerUser, &config.queue.max_running_per_user},
        std::pair{&kMaxNodesPerUser, &config.queue.max_nodes_per_user},
        std::pair{&kMaxRunningPerAccount, &config.queue.max_running_per_account},
        std::pair{&kMaxNodesPerAccount, &config.queue.max_nodes_per_account},
        std::pair{&kMaxElasticPercent, &config.queue.max_elastic_percent}}) {
    if (const Json::Value* value = json_member(root, setting->key)) {
      *field = require_count(*value, *setting);
    }
  }
  if (const Json::Value* value = json_member(root, "objective")) {
    config.objective = parse_objective(
        require_string(*value, "objective", "one of \"throughput\", \"speedup\", \"fair\""));
  }
  if (const Json::Value* value = json_member(root, kFairP.key)) {
    config.fair_p = require_number(*value, kFairP, "a number");
  }
  if (const Json::Value* value = json_member(root, "account_weights")) {
    config.queue.account_weights = parse_account_weights(*value);
  }
  if (config.fair_p != kFairP.default_value && config.objective != allocator::Objective::fair) {
    throw InputError(std::string(kFairP.key),
                     "is the \"fair\" objective's exponent and the objective is \"" +
                         std::string(to_string(config.objective)) +
                         "\": set \"objective\": \"fair\" or remove fair_p");
  }
  if (config.max_connections_per_peer > config.max_connections) {
    throw InputError("max_connections_per_peer",
                     "is " + std::to_string(config.max_connections_per_peer) +
                         ", more than max_connections (" + std::to_string(config.max_connections) +
                         "): lower it, or one host could take every connection");
  }
  if (const Json::Value* value = json_member(root, "resize")) {
    if (!value->isBool()) {
      throw_json_type_error("resize", "true (resize elastic jobs) or false (only watch)", *value);
    }
    config.resize = value->asBool();
  }
  if (const Json::Value* value = json_member(root, "elastic_partition")) {
    config.elastic_partitions = ElasticPartitions(
        require_string(*value, "elastic_partition",
                       "the Slurm partition elastic jobs run in, or several joined by commas"));
  }
  if (const Json::Value* value = json_member(root, "node_types")) {
    config.node_types = parse_node_types(*value);
  }
  if (const Json::Value* value = json_member(root, "satellite_qos")) {
    config.satellite_qos = require_string(*value, "satellite_qos",
                                          "the QOS satellites run in (\"\" for the job's own)");
  }
  if (const Json::Value* value = json_member(root, "satellite_partition")) {
    config.satellite_partition =
        require_string(*value, "satellite_partition",
                       "the partition satellites are allocated in (\"\" for the job's)");
  }
  if (const Json::Value* value = json_member(root, "home_partition")) {
    config.home_partition =
        require_string(*value, "home_partition",
                       "the partition elastic jobs' batch scripts run in (\"\" for none)");
    if (config.elastic_partitions.contains(config.home_partition)) {
      throw InputError("home_partition", "\"" + config.home_partition +
                                             "\" is also an elastic partition: home nodes never "
                                             "train; name a partition of service nodes of its own");
    }
  }
  if (const Json::Value* value = json_member(root, "satellite_reservation")) {
    config.satellite_reservation = require_string(
        *value, "satellite_reservation", "the reservation satellites are made in (\"\" for none)");
  }
  if (const Json::Value* value = json_member(root, "log_level")) {
    const std::string level =
        require_string(*value, "log_level", "one of \"debug\", \"info\", \"warning\"");
    if (level == "debug") {
      config.log_level = LogLevel::debug;
    } else if (level == "info") {
      config.log_level = LogLevel::info;
    } else if (level == "warning") {
      config.log_level = LogLevel::warning;
    } else {
      throw InputError("log_level",
                       "\"" + level + "\" is not a level: use \"debug\", \"info\" or \"warning\"");
    }
  }
  return config;
}

}  // namespace gaptrain::core
