// Rate limit on refused requests, per sender: a sender that makes gaptraind refuse more than
// `max_rejections` requests as hostile (bad credentials, garbage, forged events, lines over the
// cap or too slow; daemon.hpp note_rejection) within `window_s` is blocked for `block_s`.
//
// The sender is the munge-authenticated uid wherever the request carried a valid credential
// (sender_of_uid), so that one user's refusals never block another user on the same host; it is
// the peer's address only for what nobody authenticated (sender_of_address). Root and SlurmUser
// are never charged (the daemon does not count their refusals). Accepted requests never count,
// so a burst of real plugin events from one host is never limited. Pure: times in, verdicts out.
#pragma once

#include <sys/types.h>

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

// Who is charged for a refusal: "uid N" or "address A" (also what the journal shows).
std::string sender_of_uid(uid_t uid);
std::string sender_of_address(std::string_view address);

class RejectionLimiter {
 public:
  explicit RejectionLimiter(RejectionLimits limits = {}) : limits_(limits) {}

  // A request of `sender` was refused at `now` (monotonic s). True when this refusal starts a
  // block (for the caller to log it once).
  bool rejected(const std::string& sender, double now);
  // Whether `sender` is blocked at `now`.
  bool blocked(const std::string& sender, double now);
  const RejectionLimits& limits() const noexcept { return limits_; }

 private:
  struct Sender {
    std::deque<double> rejections;  // within the window
    double blocked_until = 0.0;
  };
  RejectionLimits limits_;
  std::map<std::string, Sender> senders_;
};

// The address part of a peer name "ADDR:PORT" or "[ADDR]:PORT" (line_server.cpp's).
std::string peer_address(std::string_view peer);

}  // namespace gaptrain::daemon
