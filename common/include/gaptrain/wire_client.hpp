// The client side of the daemon's transport: one line out, one line back, within a deadline.
// Never throws and never blocks longer than the deadline, so the plugin can fail open.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gaptrain::wire {

struct Endpoint {
  std::string host;  // numeric IPv4 or IPv6 address, or a name resolved with getaddrinfo
  std::uint16_t port = 0;
};

// "HOST:PORT" ("[::1]:PORT" for IPv6); empty when malformed.
std::optional<Endpoint> parse_endpoint(std::string_view host_port);

struct Reply {
  bool delivered = false;  // a reply line came back within the deadline
  std::string text;        // the reply line (without '\n'), or why there is none
};

// Connects, sends `line` + '\n', reads one line back; everything within `timeout`.
Reply request(const Endpoint& endpoint, std::string_view line,
              std::chrono::milliseconds timeout) noexcept;

}  // namespace gaptrain::wire
