// Rate limit on refused requests, per peer address: a host that sends more than `max_rejections`
// requests gaptraind refuses as hostile (bad credentials, garbage, forged events, lines over the
// cap or too slow; daemon.hpp note_rejection)
// within `window_s` is not served at all for `block_s` (its connections are closed at accept).
// Accepted requests never count, so a burst of real plugin events from one host (every epilog
// of a big job's nodes, or many slurmd on one host) is never limited. Pure: times in, verdicts
// out.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <string_view>

namespace gaptrain::daemon {

struct RejectionLimits {
  int max_rejections = 50;
  double window_s = 10.0;
  double block_s = 60.0;
};

class RejectionLimiter {
 public:
  explicit RejectionLimiter(RejectionLimits limits = {}) : limits_(limits) {}

  // A request from `address` was refused at `now` (monotonic s). True when this refusal starts
  // a block (for the caller to log it once).
  bool rejected(const std::string& address, double now);
  // Whether `address` may be served at `now`.
  bool allowed(const std::string& address, double now);

 private:
  struct Peer {
    std::deque<double> rejections;  // within the window
    double blocked_until = 0.0;
  };
  RejectionLimits limits_;
  std::map<std::string, Peer> peers_;
};

// The address part of a peer name "ADDR:PORT" or "[ADDR]:PORT" (line_server.cpp's).
std::string peer_address(std::string_view peer);

}  // namespace gaptrain::daemon
