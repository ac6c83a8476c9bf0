#include "status_command.hpp"

#include <json/json.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include "daemon_client.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/protocol.hpp"
#include "one_line.hpp"

namespace gaptrain::cli {

namespace {

constexpr const char* kStatusExitHelp = R"(
Anyone may ask; no privileges are needed.

Exit status:
  0  the daemon answered
  1  it could not be reached or refused the request (one line on stderr)
  2  bad --controller or an unreadable /etc/gaptrain/gaptraind.json)";

struct StatusArgs {
  DaemonArgs daemon;
  bool json = false;
};

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string join_nodes(const Json::Value& nodes) {
  std::string out;
  for (const Json::Value& node : nodes) {
    if (!out.empty()) out += ',';
    out += node.asString();
  }
  return out.empty() ? "-" : out;
}

int run_status(const StatusArgs& args) {
  const DaemonAnswer asked = ask_daemon(args.daemon, protocol::StatusRequest{}, "status");
  if (!asked.answer) return asked.exit_status;
  const Json::Value& answer = *asked.answer;
  if (!answer["ok"].asBool()) {
    std::cerr << "gaptrain status: "
              << one_line("gaptraind at " + asked.where + " refused: " + answer["error"].asString())
              << '\n';
    return kExitFailure;
  }
  const Json::Value& status = answer["status"];
  if (args.json) {
    Json::StreamWriterBuilder writer;
    writer["indentation"] = "  ";
    std::cout << Json::writeString(writer, status) << '\n';
  } else {
    std::cout << format_status(status, static_cast<std::int64_t>(std::time(nullptr)));
  }
  return kExitOk;
}

}  // namespace

std::string format_duration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  std::ostringstream out;
  const auto two = [&](std::int64_t v) {
    if (v < 10) out << '0';
    out << v;
  };
  if (seconds < 60) {
    out << seconds << 's';
  } else if (seconds < 3600) {
    out << seconds / 60 << 'm';
    two(seconds % 60);
    out << 's';
  } else if (seconds < 86400) {
    out << seconds / 3600 << 'h';
    two(seconds % 3600 / 60);
    out << 'm';
  } else {
    out << seconds / 86400 << 'd';
    two(seconds % 86400 / 3600);
    out << 'h';
  }
  return out.str();
}

std::string format_status(const Json::Value& status, std::int64_t now) {
  std::ostringstream out;
  const Json::Value& holes = status["holes"];
  out << "Holes: " << holes.size() << " idle node" << (holes.size() == 1 ? "" : "s") << '\n';
  if (!holes.empty()) {
    out << "  " << pad("NODE", 12) << pad("IDLE FOR", 10) << pad("ENDS", 14) << "TAKEN BY\n";
    for (const Json::Value& hole : holes) {
      const Json::Value& end = hole["predicted_end"];
      std::string ends = "unknown";
      if (!end.isNull()) {
        const std::int64_t left = end.asInt64() - now;
        ends = left > 0 ? "in " + format_duration(left) : "now";
      }
      std::string by = "-";
      if (!hole["next_job"].isNull()) {
        by = "job " + std::to_string(hole["next_job"].asUInt());
      } else if (hole["reservation"].isString()) {
        by = "reservation " + hole["reservation"].asString();
      }
      out << "  " << pad(hole["node"].asString(), 12)
          << pad(format_duration(now - hole["since"].asInt64()), 10) << pad(ends, 14) << by << '\n';
    }
  }

  const Json::Value& jobs = status["elastic_jobs"];
  out << "Elastic jobs: " << jobs.size() << '\n';
  if (!jobs.empty()) {
    out << "  " << pad("JOB", 10) << pad("USER", 12) << pad("PARTITION", 11) << pad("MIN-MAX", 9)
        << pad("CURVE", 10) << "NODES (BATCH HOST FIRST)\n";
    for (const Json::Value& job : jobs) {
      NodeSizes sizes{job["min_nodes"].asInt(), job["max_nodes"].asInt(), {}};
      for (const Json::Value& nodes : job["allowed_sizes"]) sizes.allowed.push_back(nodes.asInt());
      // "2-8", or the only counts it runs on ("2-8:2", "1,2,4,8").
      std::string minmax = to_text(sizes);
      if (sizes.allowed.empty() && sizes.min == sizes.max) minmax += "-" + minmax;
      // "assumed": the allocator uses a prior until the job's progress is measured ("learned").
      const std::string curve = job["curve"]["source"].asString();
      std::string nodes = job["batch_host"].asString();
      for (const Json::Value& node : job["nodes"]) {
        if (node.asString() != job["batch_host"].asString()) nodes += "," + node.asString();
      }
      out << "  " << pad(std::to_string(job["job_id"].asUInt()), 10)
          << pad(job["user"].asString(), 12) << pad(job["partition"].asString(), 11)
          << pad(minmax, 9) << pad(curve, 10) << (nodes.empty() ? join_nodes(job["nodes"]) : nodes)
          << " (" << job["nodes"].size()
          << (job["type"].asString().empty() ? "" : " " + job["type"].asString())  // node type
          << ")\n";
    }
  }

  // An admin's pause or drain (absent from older daemons).
  const std::string operation = status["operation"].asString();
  if (operation == "paused" || operation == "draining") {
    out << "gaptraind is " << operation << " by an admin: no admissions, no grows"
        << (operation == "draining" ? ", satellites given back" : "")
        << "; reclaims served (`gaptrain resume` ends it)\n";
  }

  // Parked and held jobs the queue policy does not admit yet (absent from older daemons).
  for (const Json::Value& waiting : status["queue"]) {
    out << "  queued: job " << waiting["job_id"].asUInt()
        << " waits: " << waiting["reason"].asString() << '\n';
  }

  // The controller's resizing (absent from daemons that only watch).
  const Json::Value& actions = status["actions"];
  if (actions.isObject()) {
    for (const Json::Value& drain : actions["draining"]) {
      out << "  draining: job " << drain["job_id"].asUInt() << " " << drain["action"].asString()
          << ", letting go of " << join_nodes(drain["nodes"]);
      if (!drain["waiting_job"].isNull()) out << " for job " << drain["waiting_job"].asUInt();
      out << " (" << format_duration(static_cast<std::int64_t>(drain["for_s"].asDouble()))
          << " so far)\n";
    }
    for (const Json::Value& retry : actions["retrying"]) {
      out << "  retrying: job " << retry["job_id"].asUInt() << " " << retry["action"].asString()
          << " failed " << retry["failures"].asInt() << "x, next try in "
          << format_duration(static_cast<std::int64_t>(retry["retry_in_s"].asDouble()) + 1) << ": "
          << retry["error"].asString() << '\n';
    }
    const auto counts = [](const Json::Value& by_kind) {
      std::string text;
      for (const std::string& kind : by_kind.getMemberNames()) {
        if (!text.empty()) text += ", ";
        text += std::to_string(by_kind[kind].asUInt64()) + " " + kind;
      }
      return text.empty() ? std::string("none") : text;
    };
    out << "Actions done: " << counts(actions["done"]) << "; failed: " << counts(actions["failed"])
        << ".\n";
  }

  const Json::Value& events = status["events"];
  out << "Plugin requests: " << events["accepted"].asUInt64() << " accepted, "
      << events["rejected"].asUInt64() << " rejected. ";
  const Json::Value& last_poll = status["last_poll"];
  if (last_poll.isNull()) {
    out << "Slurm not polled yet.\n";
  } else {
    out << "Slurm polled " << format_duration(now - last_poll.asInt64()) << " ago.\n";
  }
  const Json::Value& slurm_error = status["slurm_error"];
  if (slurm_error.isString()) {
    out << "Slurm does not answer (gaptraind retries and resizes nothing meanwhile): "
        << slurm_error.asString() << "\n";
  }
  return out.str();
}

Command add_status_command(CLI::App& parent) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* app = parent.add_subcommand(
      "status", "Show gaptraind's live view: holes, when each ends, and the elastic jobs");
  app->footer(std::string(kDaemonWhereHelp) + kStatusExitHelp);
  add_daemon_options(*app, args->daemon);
  app->add_flag("--json", args->json, "Print the daemon's status object as JSON");
  return Command{app, [args] { return run_status(*args); }};
}

}  // namespace gaptrain::cli
