#include "rejection_limiter.hpp"

namespace gaptrain::daemon {

bool RejectionLimiter::rejected(const std::string& address, double now) {
  Peer& peer = peers_[address];
  peer.rejections.push_back(now);
  while (!peer.rejections.empty() && peer.rejections.front() <= now - limits_.window_s) {
    peer.rejections.pop_front();
  }
  if (now < peer.blocked_until ||
      static_cast<int>(peer.rejections.size()) <= limits_.max_rejections) {
    return false;
  }
  peer.blocked_until = now + limits_.block_s;
  peer.rejections.clear();
  return true;
}

bool RejectionLimiter::allowed(const std::string& address, double now) {
  const auto it = peers_.find(address);
  if (it == peers_.end()) return true;
  if (now < it->second.blocked_until) return false;
  // Forget peers with nothing left to remember: the map does not grow with every address seen.
  if (it->second.rejections.empty() || it->second.rejections.back() <= now - limits_.window_s) {
    peers_.erase(it);
  }
  return true;
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
