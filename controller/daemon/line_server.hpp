// The daemon's transport (docs/protocol.md): TCP, one request per connection; the client sends
// one line, the server answers one line and closes. Runs on an sd-event loop and never blocks
// it: sockets are non-blocking, every connection has a deadline (a silent or slow client is cut
// off, with an error line when it can still take one), a request line has a length cap
// (line_framing.hpp), and connections are capped per peer address and in total. At a cap the
// oldest connection still waiting for its line gives way to the newcomer, so that whoever holds
// idle connections cannot shut out a client that sends its request at once (the sender's uid
// is known only from that line: docs/admin.md, "Limits"). A reply may be
// given later (the handler hands the request to a worker): the connection waits for it, up to
// its own deadline.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/config.hpp"

namespace gaptrain::daemon {

class LineServer {
 public:
  // Names a connection for a reply given later; never reused, so a reply for a connection that
  // closed meanwhile (deadline, client gone) is dropped rather than sent to another.
  using ConnectionId = std::uint64_t;
  // Takes a request line (without '\n') from `peer` ("ADDR:PORT"); its reply is given with
  // reply(id, ...), now or later, on the loop's thread. Must not throw.
  using Handler =
      std::function<void(std::string_view line, const std::string& peer, ConnectionId id)>;
  // The same for a reply known at once (the reply line, without '\n').
  using ImmediateHandler =
      std::function<std::string(std::string_view line, const std::string& peer)>;
  // Told about requests refused before they reach the handler for what the client did (too
  // long, too slow); not for what the server could not do (busy, out of connections).
  using Refusal = std::function<void(const std::string& peer, const std::string& reason)>;

  struct Limits {
    std::size_t max_line = 64 * 1024;  // a munge credential of a registration with a long curve
    std::chrono::milliseconds read_deadline{1000};
    std::chrono::milliseconds write_deadline{5000};  // status replies can be large
    // A request the handler has not answered within this is answered "busy" (a registration
    // waits for a poll, which waits up to Slurm's MessageTimeout).
    std::chrono::milliseconds reply_deadline{30000};
    std::size_t max_connections = 512;          // open at once, all peers together
    std::size_t max_connections_per_peer = 64;  // open at once from one address
    // Accepting stops this long when the process is out of file descriptors (EMFILE), so the
    // loop does not spin on a listening socket it cannot accept from.
    std::chrono::milliseconds accept_pause{100};
  };

  LineServer(sd_event* event, Handler handler, Refusal refusal, Limits limits);
  LineServer(sd_event* event, ImmediateHandler handler, Refusal refusal, Limits limits);
  LineServer(sd_event* event, ImmediateHandler handler, Refusal refusal)
      : LineServer(event, std::move(handler), std::move(refusal), Limits{}) {}
  ~LineServer();
  LineServer(const LineServer&) = delete;
  LineServer& operator=(const LineServer&) = delete;

  // Starts listening on `address` (replacing the current socket only once the new one is bound).
  // Throws std::system_error naming the address.
  void listen(const core::ListenAddress& address);
  // Closes the listening socket; connections already accepted are still served.
  void stop_listening();
  // The connection caps of connections accepted from now on.
  void set_connection_limits(std::size_t total, std::size_t per_peer);
  // Answers connection `id` (dropped when it has closed meanwhile or was answered already).
  void reply(ConnectionId id, std::string reply);
  std::size_t connections() const noexcept { return connections_.size(); }
  // Times accepting was paused because the process ran out of file descriptors.
  std::uint64_t accept_pauses() const noexcept { return accept_pauses_; }
  // Connections refused at accept, or closed unread to make room, for a connection cap.
  std::uint64_t over_cap() const noexcept { return over_cap_; }
  // Called whenever the last open connection closes (for draining on SIGTERM).
  void on_idle(std::function<void()> callback) { on_idle_ = std::move(callback); }

 private:
  struct Connection;
  static int on_accept(sd_event_source* source, int fd, std::uint32_t events, void* self);
  static int on_accept_resume(sd_event_source* source, std::uint64_t usec, void* self);
  static int on_io(sd_event_source* source, int fd, std::uint32_t events, void* connection);
  static int on_deadline(sd_event_source* source, std::uint64_t usec, void* connection);
  void accept_all();
  void pause_accepting();
  // Makes room for one more connection from `address` under the caps by closing the oldest
  // connection still waiting for its request line (from that address when its own cap is
  // reached); false when every open connection is past that (being answered).
  bool make_room(const std::string& address);
  // Reads what has arrived; false when the connection was closed or answered.
  bool read_some(Connection& connection);
  void write_some(Connection& connection);
  void respond(Connection& connection, std::string reply);
  void close(ConnectionId id);

  sd_event* event_;
  Handler handler_;
  Refusal refusal_;
  Limits limits_;
  int listen_fd_ = -1;
  sd_event_source* listen_source_ = nullptr;
  sd_event_source* accept_resume_ = nullptr;
  ConnectionId next_id_ = 1;
  std::map<ConnectionId, std::unique_ptr<Connection>> connections_;
  std::map<std::string, std::size_t> per_peer_;  // open connections by peer address
  std::uint64_t accept_pauses_ = 0;
  std::uint64_t over_cap_ = 0;
  std::function<void()> on_idle_;
};

// `{"ok":false,"error":"..."}`: the reply for any refused request.
std::string error_reply(std::string_view error);

}  // namespace gaptrain::daemon
