// gaptraind's Prometheus metrics (prometheus-cpp), served on `metrics_listen` when it is set.
// The event loop updates them after every poll and action; the exposer's own thread answers
// scrapes (prometheus-cpp's metrics are safe to read while they are written).
//   gaptrain_hole_nodes{partition}           idle nodes (holes) now, by partition (a node in
//                                            several partitions counts in each; no label when
//                                            Slurm listed no partitions)
//   gaptrain_elastic_nodes{partition}        nodes held by managed elastic jobs (satellites too)
//   gaptrain_elastic_node_seconds_total{partition,user,account}
//                                            what managed elastic jobs held, satellites too, in
//                                            node-seconds: what a site charges (elastic_usage.hpp);
//                                            without the user label where Slurm's PrivateData
//                                            hides other users' jobs, usage or users, without
//                                            the account label where it hides jobs, usage or
//                                            accounts (anyone who reaches the port may scrape)
//   gaptrain_jobs{kind,state}                Slurm's jobs: kind regular|elastic, state
//                                            pending|running
//   gaptrain_elastic_jobs_managed            elastic jobs registered and managed
//   gaptrain_operation{state}                1 for what an admin lets gaptraind do:
//                                            running|paused|draining, 0 for the others
//   gaptrain_actions_total{action,result}    resizes and leases: grow|shrink|requeue|admit|lease,
//                                            done|failed
//   gaptrain_requests_total{result}          protocol requests: accepted|rejected
//   gaptrain_solve_seconds                   the allocator's solve time per plan (histogram)
//   gaptrain_reclaim_seconds                 a reclaim's drain requested -> nodes released
// The node gauges gained their partition label with several elastic partitions: a query by name
// alone still selects them, now one series per partition.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"
#include "core/elastic_partitions.hpp"
#include "core/elastic_usage.hpp"
#include "core/holes.hpp"
#include "core/operation.hpp"
#include "core/resizer.hpp"
#include "status.hpp"

namespace prometheus {
class Exposer;
}

namespace gaptrain::daemon {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Serves the registry at http://LISTEN/metrics (LISTEN as config.hpp's listen: a numeric
  // HOST:PORT; port 0 takes a free one, see port()). Throws std::runtime_error when it cannot
  // bind. Scrapes are answered by several threads, and a connection that sends no complete
  // request in time is closed: idle or slow clients do not keep Prometheus out.
  void serve(const std::string& host, std::uint16_t port);
  // The port served on (0 before serve()).
  std::uint16_t port() const;

  // The model after a poll, at `mono_s` (CLOCK_MONOTONIC seconds): holes, elastic nodes, jobs
  // by kind and state, the node-seconds the elastic jobs held since the last update, and the
  // counters of actions and requests (which only grow: the increase since the last update is
  // added).
  void update(const core::Snapshot& snapshot, const std::vector<core::Hole>& holes,
              const core::ElasticJobs& elastic, const core::ElasticPartitions& elastic_partitions,
              const core::ActionCounts& actions, const EventCounts& events, double mono_s);
  // What an admin lets gaptraind do (operation.hpp): gaptrain_operation{state} is 1 for it,
  // 0 for the others.
  void set_operation(core::Operation operation);
  // slurm.conf's PrivateData, as slurmctld last said: which owner labels the node-seconds carry.
  // Until it is first set every owner label is left out. The series of labels it hides now
  // are removed (a reconfigure that sets it takes them off the endpoint).
  void set_private_data(const core::PrivateData& private_data);
  void observe_solve(double seconds);
  void observe_reclaim(double seconds);

  // The registry in Prometheus' text format (what a scrape returns), for tests.
  std::string text() const;

 private:
  prometheus::Counter& action_counter(const std::string& action, const std::string& result);
  // Sets `family`'s gauge of each partition to its count, and to 0 those of partitions seen
  // before and gone now. The partition "" is the series without a label.
  static void set_by_partition(prometheus::Family<prometheus::Gauge>& family,
                               const std::map<std::string, std::size_t>& counts,
                               std::set<std::string>& seen);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Gauge>& hole_nodes_;
  prometheus::Family<prometheus::Gauge>& elastic_nodes_;
  prometheus::Family<prometheus::Counter>& node_seconds_;
  prometheus::Gauge& managed_jobs_;
  prometheus::Family<prometheus::Gauge>& jobs_;
  prometheus::Family<prometheus::Gauge>& operation_;
  prometheus::Family<prometheus::Counter>& actions_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Counter& requests_accepted_;
  prometheus::Counter& requests_rejected_;
  prometheus::Histogram& solve_seconds_;
  prometheus::Histogram& reclaim_seconds_;
  // What the counters have been told so far, to add increases only.
  std::map<std::pair<std::string, std::string>, std::uint64_t> actions_seen_;
  EventCounts events_seen_;
  std::set<std::string> hole_partitions_;
  std::set<std::string> elastic_partitions_;
  core::NodeSecondsMeter node_seconds_meter_;
  bool show_users_ = false;
  bool show_accounts_ = false;
  std::map<prometheus::Labels, prometheus::Counter*> node_seconds_series_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace gaptrain::daemon
