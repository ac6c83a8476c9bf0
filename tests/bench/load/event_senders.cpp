#include "event_senders.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace gaptrain::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

protocol::Request node_event(const NodeEvent& event, bool freed) {
  if (freed) return protocol::NodeFreed{event.job_id, event.node};
  return protocol::NodeTaken{event.job_id, event.node, false};
}

}  // namespace

SendStats send_node_events(const std::vector<NodeEvent>& events, bool freed, int senders,
                           const plugin::PluginConfig& config) {
  SendStats total;
  std::mutex merge;
  std::atomic<std::size_t> next{0};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(senders, 1); ++t) {
    threads.emplace_back([&] {
      SendStats mine;
      for (std::size_t i = next++; i < events.size(); i = next++) {
        const Clock::time_point sent = Clock::now();
        const plugin::Outcome outcome = plugin::notify(config, node_event(events[i], freed));
        mine.latency_ms.push_back(ms_since(sent));
        ++mine.sent;
        if (outcome.ok) {
          ++mine.accepted;
          continue;
        }
        // notify's messages: "controller refused: ..." when the daemon said no; otherwise the
        // transport's (timeout, connection refused).
        if (outcome.message.starts_with("controller refused")) {
          ++mine.rejected;
        } else {
          ++mine.undelivered;
        }
        if (mine.first_failure.empty()) mine.first_failure = outcome.message;
      }
      const std::lock_guard lock(merge);
      total.sent += mine.sent;
      total.accepted += mine.accepted;
      total.rejected += mine.rejected;
      total.undelivered += mine.undelivered;
      if (total.first_failure.empty()) total.first_failure = mine.first_failure;
      total.latency_ms.insert(total.latency_ms.end(), mine.latency_ms.begin(),
                              mine.latency_ms.end());
    });
  }
  for (std::thread& thread : threads) thread.join();
  total.seconds = ms_since(start) / 1000.0;
  return total;
}

}  // namespace gaptrain::bench
