// The daemon's transport (docs/protocol.md): TCP, one request per connection; the client sends
// one line, the server answers one line and closes. Runs on an sd-event loop and never blocks
// it: sockets are non-blocking, every connection has a deadline (a silent or slow client is cut
// off, with an error line when it can still take one) and a request line has a length cap.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "config.hpp"

namespace gaptrain::daemon {

class LineServer {
 public:
  // Turns a request line (without '\n') from `peer` ("ADDR:PORT") into the reply line (without
  // '\n'). Must not throw.
  using Handler = std::function<std::string(std::string_view line, const std::string& peer)>;
  // Told about requests refused before they reach the handler (too long, too slow).
  using Refusal = std::function<void(const std::string& peer, const std::string& reason)>;

  struct Limits {
    std::size_t max_line = 64 * 1024;  // a munge credential of a registration with a long curve
    std::chrono::milliseconds read_deadline{1000};
    std::chrono::milliseconds write_deadline{5000};  // status replies can be large
  };

  LineServer(sd_event* event, Handler handler, Refusal refusal, Limits limits);
  LineServer(sd_event* event, Handler handler, Refusal refusal)
      : LineServer(event, std::move(handler), std::move(refusal), Limits{}) {}
  ~LineServer();
  LineServer(const LineServer&) = delete;
  LineServer& operator=(const LineServer&) = delete;

  // Starts listening on `address` (replacing the current socket only once the new one is bound).
  // Throws std::system_error naming the address.
  void listen(const ListenAddress& address);
  // Closes the listening socket; connections already accepted are still served.
  void stop_listening();
  std::size_t connections() const noexcept { return connections_.size(); }
  // Connections from a peer ("ADDR:PORT") the filter refuses are closed at once, unread.
  using AcceptFilter = std::function<bool(const std::string& peer)>;
  void set_accept_filter(AcceptFilter filter) { accept_filter_ = std::move(filter); }
  // Called whenever the last open connection closes (for draining on SIGTERM).
  void on_idle(std::function<void()> callback) { on_idle_ = std::move(callback); }

 private:
  struct Connection;
  static int on_accept(sd_event_source* source, int fd, std::uint32_t events, void* self);
  static int on_io(sd_event_source* source, int fd, std::uint32_t events, void* connection);
  static int on_deadline(sd_event_source* source, std::uint64_t usec, void* connection);
  void accept_all();
  void read_some(Connection& connection);
  void write_some(Connection& connection);
  void respond(Connection& connection, std::string reply);
  void close(int fd);

  sd_event* event_;
  Handler handler_;
  Refusal refusal_;
  AcceptFilter accept_filter_;
  Limits limits_;
  int listen_fd_ = -1;
  sd_event_source* listen_source_ = nullptr;
  std::map<int, std::unique_ptr<Connection>> connections_;
  std::function<void()> on_idle_;
};

// `{"ok":false,"error":"..."}`: the reply for any refused request.
std::string error_reply(std::string_view error);

}  // namespace gaptrain::daemon
