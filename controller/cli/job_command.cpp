#include "job_command.hpp"

#include <json/json.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>

#include "daemon_client.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/protocol.hpp"
#include "job_plot.hpp"
#include "one_line.hpp"
#include "simulator/svg_text.hpp"
#include "status_command.hpp"

namespace gaptrain::cli {

namespace {

constexpr const char* kJobExitHelp = R"(

With Slurm's PrivateData=jobs a user sees only their own jobs (root and SlurmUser see all).
gaptraind keeps a job's history while it runs and for its last job_history ended jobs.

Exit status:
  0  the daemon answered
  1  it could not be reached, refused, or has no such job in its history (one line on stderr)
  2  bad usage, bad --controller or an unreadable /etc/gaptrain/gaptraind.json)";

struct JobArgs {
  DaemonArgs daemon;
  std::uint32_t job_id = 0;
  bool json = false;
  std::string plot;
};

std::string local_time(double unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  localtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  return text;
}

std::string rate(const Json::Value& value) {
  return value.isNull() ? std::string("-") : sim::svg::number(value.asDouble(), 1) + " samples/s";
}

// A column of the resize table: `text` padded to `width`, and the space between columns.
std::string column(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text + ' ';
}

bool write_plot(const std::string& path, const Json::Value& view) {
  std::ofstream out(path, std::ios::trunc);
  if (out) out << job_plot_svg(view);
  if (!out) {
    report("job", "cannot write the plot to " + path + ": " + std::strerror(errno));
    return false;
  }
  return true;
}

int run_job(const JobArgs& args) {
  const DaemonAnswer asked = ask_daemon(args.daemon, protocol::JobRequest{args.job_id}, "job");
  if (!asked.answer) return asked.exit_status;
  const Json::Value& answer = *asked.answer;
  if (!answer["ok"].asBool()) {
    if (answer["queued"].asBool()) {
      // Not an error: the job is there, waiting its turn; its history starts at admission.
      std::cout << answer["error"].asString() << '\n';
      return kExitOk;
    }
    if (answer["unknown_job"].asBool()) {
      report("job", "no such job in gaptraind's history: " + answer["error"].asString());
    } else {
      report("job", "gaptraind at " + asked.where + " refused: " + answer["error"].asString());
    }
    return kExitFailure;
  }
  const Json::Value& view = answer["job"];
  if (!args.plot.empty() && !write_plot(args.plot, view)) return kExitFailure;
  if (args.json) {
    Json::StreamWriterBuilder writer;
    writer["indentation"] = "  ";
    std::cout << Json::writeString(writer, view) << '\n';
  } else {
    std::cout << format_job(view);
  }
  return kExitOk;
}

}  // namespace

std::string format_job(const Json::Value& view) {
  std::ostringstream out;
  out << "Job " << view["job_id"].asUInt() << " (" << view["user"].asString() << "), "
      << view["state"].asString();
  if (!view["ended_at"].isNull()) out << " at " << local_time(view["ended_at"].asDouble());
  out << '\n';
  const Json::Value& throughput = view["throughput"];
  out << "  nodes now: " << throughput["nodes"].asInt()
      << "; throughput: " << rate(throughput["recent_samples_per_s"]) << " lately, "
      << rate(throughput["samples_per_s"]) << " overall; the curve says "
      << rate(throughput["curve_samples_per_s"]) << '\n';
  out << "  node-hours: " << sim::svg::number(view["node_hours"].asDouble(), 2)
      << "; time lost to resizes: "
      // Rounded as the launcher's end-of-job summary rounds it: one number in both places.
      << format_duration(std::llround(view["resize_lost_s"].asDouble())) << '\n';
  const Json::Value& curve = view["curve"];
  out << "  curve (" << curve["source"].asString() << "):";
  for (const char* part : {"measured", "assumed"}) {
    out << ' ' << part;
    if (curve[part].empty()) out << " -";
    for (const Json::Value& point : curve[part]) {
      out << ' ' << point[0].asInt() << ':' << sim::svg::number(point[1].asDouble(), 1);
    }
    out << (std::string_view(part) == "measured" ? ';' : '\n');
  }
  // A job with a batch range: what it may train at and the noise scale it is valued at.
  if (const Json::Value& batch = view["batch"]; batch.isObject()) {
    out << "  batch: " << batch["tuned"].asInt() << " tuned, up to " << batch["max"].asInt();
    if (batch["max_per_node"].asInt() > 0) {
      out << ", at most " << batch["max_per_node"].asInt() << " a node";
    }
    out << "; noise scale " << sim::svg::number(view["noise_scale"].asDouble(), 1) << " ("
        << view["noise_scale_source"].asString() << ")\n";
  }
  const Json::Value& resizes = view["resizes"];
  out << "Resizes: " << resizes.size() << '\n';
  if (!resizes.empty()) {
    out << "  " << column("TIME", 19) << column("KIND", 8) << column("NODES", 6) << "REASON\n";
    for (const Json::Value& resize : resizes) {
      out << "  " << column(local_time(resize["time"].asDouble()), 19)
          << column(resize["kind"].asString(), 8)
          << column(std::to_string(resize["nodes"].size()), 6) << resize["reason"].asString()
          << '\n';
    }
  }
  out << "Progress reports kept: " << view["progress"].size() << '\n';
  return out.str();
}

Command add_job_command(CLI::App& parent) {
  auto args = std::make_shared<JobArgs>();
  CLI::App* app = parent.add_subcommand(
      "job", "Show what happened to one elastic job: resizes, progress, curve, node-hours");
  app->footer(std::string(kDaemonWhereHelp) + kJobExitHelp);
  app->add_option("ID", args->job_id, "The Slurm job id")
      ->required()
      ->check(CLI::Range(1u, 4294967295u));
  add_daemon_options(*app, args->daemon);
  app->add_flag("--json", args->json, "Print the daemon's job object as JSON");
  app->add_option("--plot", args->plot, "Also draw nodes and progress rate over time as SVG")
      ->type_name("FILE.svg");
  return Command{app, [args] { return run_job(*args); }};
}

}  // namespace gaptrain::cli
