// resize_tool: the controller's Slurm actions (LibslurmActions) from the command line, for the
// real-cluster tests in run_resize_case.sh. Test-only; not installed.
//   resize_tool shrink JOBID n1,n2
//   resize_tool grow JOBID PARTITION n3,n4 [MINUTES]  prints "ok satellites n3=ID,n4=ID"
//   resize_tool release ID[,ID]                        ends satellites (their own job ids)
//   resize_tool lease JOBID MINUTES
//   resize_tool admit JOBID n1,n2 MINUTES               a held job
//   resize_tool admit-parked JOBID n1,n2 MINUTES        a parked one (begin time far ahead)
//   resize_tool requeue JOBID
// Prints "ok ..." or "error: ..." and exits 0 or 1 (2 on a usage error). shrink and grow read
// the job's batch host and owner from slurmctld first, as the daemon's poll would.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "libslurm_actions.hpp"
#include "slurm_api.hpp"

namespace {

using gaptrain::core::ActionResult;
using gaptrain::core::GrowRequest;
using gaptrain::daemon::LibslurmActions;

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::uint32_t number(const std::string& s) {
  return static_cast<std::uint32_t>(std::stoul(s));
}

int report(const ActionResult& r, const std::string& done) {
  if (!r.ok) {
    std::cout << "error: " << r.error << "\n";
    return 1;
  }
  std::cout << "ok " << done << "\n";
  return 0;
}

int shrink(LibslurmActions& actions, std::uint32_t job, const std::string& nodes) {
  const auto view = actions.describe(job);
  if (!view.ok) return report({false, view.error}, "");
  return report(actions.shrink({job, view.batch_host, split(nodes)}), "kept " + nodes);
}

// MINUTES: the satellites' time limit (GrowRequest::time_limit_minutes); 0: the partition's.
int grow(LibslurmActions& actions, std::uint32_t job, const std::string& partition,
         const std::string& nodes, std::uint32_t minutes) {
  const auto view = actions.describe(job);
  if (!view.ok) return report({false, view.error}, "");
  GrowRequest request;
  request.job_id = job;
  request.partition = partition;
  request.add_nodes = split(nodes);
  request.user_id = view.user_id;
  request.group_id = view.group_id;
  request.time_limit_minutes = minutes;
  const auto r = actions.grow(request);
  std::string satellites;
  for (const auto& [node, id] : r.satellites) {
    satellites += (satellites.empty() ? "" : ",") + node + "=" + std::to_string(id);
  }
  return report({r.ok, r.error}, "satellites " + satellites);
}

int release(LibslurmActions& actions, const std::string& ids) {
  std::vector<std::uint32_t> satellites;
  for (const std::string& id : split(ids)) satellites.push_back(number(id));
  if (satellites.empty()) return 2;
  const ActionResult r = actions.release(satellites);
  if (!r.ok) return report(r, "");
  std::cout << "ok\n";
  return 0;
}

int run(const std::vector<std::string>& a) {
  LibslurmActions actions;
  const std::string& cmd = a.at(0);
  if (cmd == "release" && a.size() == 2) return release(actions, a[1]);
  const std::uint32_t job = number(a.at(1));
  if (cmd == "shrink" && a.size() == 3) return shrink(actions, job, a[2]);
  if (cmd == "grow" && (a.size() == 4 || a.size() == 5)) {
    return grow(actions, job, a[2], a[3], a.size() == 5 ? number(a[4]) : 0);
  }
  if (cmd == "lease" && a.size() == 3) {
    return report(actions.set_time_limit(job, number(a[2])), "TimeLimit " + a[2]);
  }
  if ((cmd == "admit" || cmd == "admit-parked") && a.size() == 4) {
    return report(actions.admit({job, split(a[2]), number(a[3]), "", cmd == "admit"}),
                  "admitted on " + a[2]);
  }
  if (cmd == "requeue" && a.size() == 2) return report(actions.requeue(job), "requeued");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  int rc = 2;
  if (args.size() >= 2) {
    slurm_init(nullptr);  // reads SLURM_CONF
    try {
      rc = run(args);
    } catch (const std::exception& e) {  // a JOBID or MINUTES that is no number
      std::cerr << "resize_tool: " << e.what() << "\n";
      rc = 2;
    }
    slurm_fini();
  }
  if (rc == 2) {
    std::cerr << "usage: resize_tool shrink JOBID n1,n2 | grow JOBID PARTITION n3,n4 [MINUTES] |"
                 " release ID[,ID] | lease JOBID MINUTES | admit JOBID n1,n2 MINUTES |"
                 " requeue JOBID\n";
  }
  return rc;
}
