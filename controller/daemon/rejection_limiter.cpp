#include "rejection_limiter.hpp"

namespace gaptrain::daemon {

std::string sender_of_uid(uid_t uid) {
  return "uid " + std::to_string(uid);
}

std::string sender_of_address(std::string_view address) {
  return "address " + std::string(address);
}

bool RejectionLimiter::rejected(const std::string& sender, double now) {
  Sender& s = senders_[sender];
  s.rejections.push_back(now);
  while (!s.rejections.empty() && s.rejections.front() <= now - limits_.window_s) {
    s.rejections.pop_front();
  }
  if (now < s.blocked_until || static_cast<int>(s.rejections.size()) <= limits_.max_rejections) {
    return false;
  }
  s.blocked_until = now + limits_.block_s;
  s.rejections.clear();
  return true;
}

bool RejectionLimiter::blocked(const std::string& sender, double now) {
  const auto it = senders_.find(sender);
  if (it == senders_.end()) return false;
  if (now < it->second.blocked_until) return true;
  // Forget senders with nothing left to remember: the map does not grow with every one seen.
  if (it->second.rejections.empty() || it->second.rejections.back() <= now - limits_.window_s) {
    senders_.erase(it);
  }
  return false;
}

std::string peer_address(std::string_view peer) {
  if (peer.starts_with('[')) {
    const auto close = peer.find(']');
    return std::string(peer.substr(1, close == std::string_view::npos ? peer.npos : close - 1));
  }
  const auto colon = peer.rfind(':');
  return std::string(colon == std::string_view::npos ? peer : peer.substr(0, colon));
}

}  // namespace gaptrain::daemon
