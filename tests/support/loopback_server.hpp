// A one-thread TCP server on 127.0.0.1 for wire-client tests: it reads one line per connection
// and answers with whatever the handler returns (std::nullopt: never answer, hold the line).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace gaptrain::test {

class LoopbackServer {
 public:
  using Handler = std::function<std::optional<std::string>(const std::string& line)>;

  explicit LoopbackServer(Handler handler);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  int connections() const noexcept { return connections_.load(); }

 private:
  void serve();

  Handler handler_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// A port on 127.0.0.1 that nobody listens on (bound, then closed).
std::uint16_t unused_port();

}  // namespace gaptrain::test
