#include "line_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "gaptrain/errno_error.hpp"
#include "gaptrain/json_text.hpp"
#include "line_framing.hpp"
#include "rejection_limiter.hpp"

namespace gaptrain::daemon {

struct LineServer::Connection {
  enum class Phase { reading, handling, replying };
  LineServer* server = nullptr;
  ConnectionId id = 0;
  int fd = -1;
  std::string peer;
  std::string address;  // the peer's, counted in per_peer_
  sd_event_source* io = nullptr;
  sd_event_source* deadline = nullptr;
  LineFramer framer;
  Phase phase = Phase::reading;
  bool extended = false;  // its read deadline fired late once and was given again
  std::string out;
  std::size_t written = 0;

  explicit Connection(std::size_t max_line) : framer(max_line) {}
  ~Connection() {
    sd_event_source_disable_unref(io);
    sd_event_source_disable_unref(deadline);
    if (fd >= 0) ::close(fd);
  }
};

namespace {

std::string peer_name(const sockaddr_storage& address) {
  std::array<char, INET6_ADDRSTRLEN> host{};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, host.data(), host.size());
    return std::string(host.data()) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, host.data(), host.size());
    return "[" + std::string(host.data()) + "]:" + std::to_string(ntohs(v6->sin6_port));
  }
  return "unknown";
}

std::uint64_t mono_now(sd_event* event) {
  std::uint64_t now = 0;
  sd_event_now(event, CLOCK_MONOTONIC, &now);
  return now;
}

std::uint64_t now_plus(sd_event* event, std::chrono::milliseconds delay) {
  return mono_now(event) + static_cast<std::uint64_t>(delay.count()) * 1000U;
}

// Out of file descriptors or kernel memory: accepting again at once would fail the same way.
bool out_of_resources(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

// One best-effort line to a connection refused at accept, so its client learns why rather than
// seeing a bare close. Never waits: a full socket buffer just loses the line.
void send_refusal(int fd, std::string_view reason) {
  const std::string line = error_reply(reason) + "\n";
  [[maybe_unused]] const ssize_t sent = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
}

}  // namespace

std::string error_reply(std::string_view error) {
  Json::Value reply(Json::objectValue);
  reply["ok"] = false;
  reply["error"] = std::string(error);
  return one_line_json(reply);
}

LineServer::LineServer(sd_event* event, Handler handler, Refusal refusal, Limits limits)
    : event_(sd_event_ref(event)),
      handler_(std::move(handler)),
      refusal_(std::move(refusal)),
      limits_(limits) {}

LineServer::LineServer(sd_event* event, ImmediateHandler handler, Refusal refusal, Limits limits)
    : LineServer(
          event,
          [this, immediate = std::move(handler)](std::string_view line, const std::string& peer,
                                                 ConnectionId id) {
            reply(id, immediate(line, peer));
          },
          std::move(refusal), limits) {}

LineServer::~LineServer() {
  connections_.clear();
  stop_listening();
  sd_event_unref(event_);
}

void LineServer::set_connection_limits(std::size_t total, std::size_t per_peer) {
  limits_.max_connections = total;
  limits_.max_connections_per_peer = per_peer;
}

void LineServer::listen(const core::ListenAddress& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const bool v6 = address.host.find(':') != std::string::npos;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(address.port);
    inet_pton(AF_INET6, address.host.c_str(), &a->sin6_addr);
    length = sizeof(sockaddr_in6);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&storage);
    a->sin_family = AF_INET;
    a->sin_port = htons(address.port);
    inet_pton(AF_INET, address.host.c_str(), &a->sin_addr);
    length = sizeof(sockaddr_in);
  }
  const std::string where = "listen on " + to_string(address);
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) gaptrain::throw_errno(errno, where);
  const int one = 1;
  // A restarted daemon must rebind at once even with connections of the old one in TIME_WAIT.
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) < 0 ||
      ::listen(fd, SOMAXCONN) < 0) {
    const int saved = errno;
    ::close(fd);
    gaptrain::throw_errno(saved, where);
  }
  sd_event_source* source = nullptr;
  const int r = sd_event_add_io(event_, &source, fd, EPOLLIN, &LineServer::on_accept, this);
  if (r < 0) {
    ::close(fd);
    gaptrain::throw_errno(-r, where);
  }
  // Made now, off: when descriptors run out it could not be (its timerfd is one).
  sd_event_source* resume = nullptr;
  const int t = sd_event_add_time(event_, &resume, CLOCK_MONOTONIC, 0, 0,
                                  &LineServer::on_accept_resume, this);
  if (t < 0) {
    sd_event_source_disable_unref(source);
    ::close(fd);
    gaptrain::throw_errno(-t, where);
  }
  sd_event_source_set_enabled(resume, SD_EVENT_OFF);
  stop_listening();
  listen_fd_ = fd;
  listen_source_ = source;
  accept_resume_ = resume;
}

void LineServer::stop_listening() {
  listen_source_ = sd_event_source_disable_unref(listen_source_);
  accept_resume_ = sd_event_source_disable_unref(accept_resume_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

int LineServer::on_accept(sd_event_source* /*source*/, int /*fd*/, std::uint32_t /*events*/,
                          void* self) {
  static_cast<LineServer*>(self)->accept_all();
  return 0;
}

int LineServer::on_accept_resume(sd_event_source* /*source*/, std::uint64_t /*usec*/, void* self) {
  auto& server = *static_cast<LineServer*>(self);
  sd_event_source_set_enabled(server.listen_source_, SD_EVENT_ON);
  server.accept_all();
  return 0;
}

void LineServer::pause_accepting() {
  // The listening socket stays readable while connections wait in its backlog: with accepting
  // on, the loop would wake for it again at once, forever. Those connections wait instead
  // (their clients time out, or are served once descriptors are free again).
  ++accept_pauses_;
  sd_event_source_set_enabled(listen_source_, SD_EVENT_OFF);
  sd_event_source_set_time(accept_resume_, now_plus(event_, limits_.accept_pause));
  sd_event_source_set_enabled(accept_resume_, SD_EVENT_ONESHOT);
}

void LineServer::accept_all() {
  // A bounded batch per wakeup (the socket is level-triggered: the rest wake the loop again),
  // so that a flood of connections does not keep the loop from the connections it has.
  constexpr int kBatch = 64;
  for (int accepted = 0; accepted < kBatch && listen_fd_ >= 0; ++accepted) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (out_of_resources(errno)) pause_accepting();
      return;  // EAGAIN: all taken
    }
    auto connection = std::make_unique<Connection>(limits_.max_line);
    connection->server = this;
    connection->fd = fd;
    connection->peer = peer_name(address);
    connection->address = peer_address(connection->peer);
    if (!make_room(connection->address)) {
      ++over_cap_;
      send_refusal(fd, "gaptraind is answering too many requests at once: retry in a moment");
      continue;  // closed by ~Connection
    }
    if (sd_event_add_io(event_, &connection->io, fd, EPOLLIN, &LineServer::on_io,
                        connection.get()) < 0 ||
        sd_event_add_time(event_, &connection->deadline, CLOCK_MONOTONIC,
                          now_plus(event_, limits_.read_deadline), 0, &LineServer::on_deadline,
                          connection.get()) < 0) {
      continue;  // the Connection's destructor closes fd
    }
    ++per_peer_[connection->address];
    connection->id = next_id_++;
    Connection& accepted_connection = *connection;
    connections_[connection->id] = std::move(connection);
    // A client usually sends its line with the connection: read it now, before a flood of
    // newer connections could make it give way (make_room).
    read_some(accepted_connection);
  }
}

bool LineServer::make_room(const std::string& address) {
  const auto open_from_peer = per_peer_.find(address);
  const bool peer_full = open_from_peer != per_peer_.end() &&
                         open_from_peer->second >= limits_.max_connections_per_peer;
  const bool all_full = connections_.size() >= limits_.max_connections;
  if (!peer_full && !all_full) return true;
  // Ids grow with time: the first one found is the oldest.
  for (auto& [id, open] : connections_) {
    if (open->phase != Connection::Phase::reading) continue;
    if (peer_full && open->address != address) continue;
    ++over_cap_;
    send_refusal(open->fd, "closed unanswered: no request line yet, and " +
                               std::string(peer_full ? "too many connections from " + address
                                                     : std::string("too many connections")) +
                               " at once; send the request as soon as connected");
    close(id);
    return true;
  }
  return false;
}

int LineServer::on_io(sd_event_source* /*source*/, int /*fd*/, std::uint32_t /*events*/,
                      void* connection) {
  auto& c = *static_cast<Connection*>(connection);
  switch (c.phase) {
    case Connection::Phase::reading: c.server->read_some(c); break;
    case Connection::Phase::replying: c.server->write_some(c); break;
    case Connection::Phase::handling: break;  // not watched meanwhile
  }
  return 0;
}

int LineServer::on_deadline(sd_event_source* /*source*/, std::uint64_t usec, void* connection) {
  auto& c = *static_cast<Connection*>(connection);
  LineServer& server = *c.server;
  switch (c.phase) {
    case Connection::Phase::replying:  // the client does not read its reply: nothing more to say
      server.close(c.id);
      return 0;
    case Connection::Phase::handling:  // not the client's doing: answered, never counted
      server.respond(
          c, error_reply("gaptraind is busy and did not answer within " +
                         std::to_string(server.limits_.reply_deadline.count()) + " ms: try again"));
      return 0;
    case Connection::Phase::reading: break;
  }
  // What arrived while the loop was busy elsewhere counts as in time: read it before judging.
  if (!server.read_some(c)) return 0;
  // A deadline that fires more than a whole read deadline late says the loop was held up, not
  // that this client was slow: it gets its read deadline again, from now, once.
  const auto allowance = static_cast<std::uint64_t>(server.limits_.read_deadline.count()) * 1000U;
  if (!c.extended && mono_now(server.event_) - usec > allowance) {
    c.extended = true;
    sd_event_source_set_time(c.deadline, now_plus(server.event_, server.limits_.read_deadline));
    sd_event_source_set_enabled(c.deadline, SD_EVENT_ONESHOT);
    return 0;
  }
  const std::string reason = "no complete request line within " +
                             std::to_string(server.limits_.read_deadline.count()) + " ms";
  server.refusal_(c.peer, reason);
  server.respond(c, error_reply(reason));
  return 0;
}

bool LineServer::read_some(Connection& c) {
  std::array<char, 8192> buffer{};
  for (;;) {
    const ssize_t n = ::recv(c.fd, buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      if (errno == EINTR) continue;
      close(c.id);
      return false;
    }
    const LineFramer::State state =
        n == 0 ? c.framer.finish()
               : c.framer.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    switch (state) {
      case LineFramer::State::incomplete: continue;
      case LineFramer::State::empty: close(c.id); return false;
      case LineFramer::State::too_long: {
        const std::string reason =
            "request line longer than " + std::to_string(limits_.max_line) + " bytes";
        refusal_(c.peer, reason);
        respond(c, error_reply(reason));
        return false;
      }
      case LineFramer::State::line: {
        c.phase = Connection::Phase::handling;
        sd_event_source_set_enabled(c.io, SD_EVENT_OFF);
        sd_event_source_set_time(c.deadline, now_plus(event_, limits_.reply_deadline));
        sd_event_source_set_enabled(c.deadline, SD_EVENT_ONESHOT);
        // The handler may reply at once, which may close the connection: c is not used after.
        handler_(c.framer.line(), c.peer, c.id);
        return false;
      }
    }
  }
}

void LineServer::reply(ConnectionId id, std::string reply) {
  const auto it = connections_.find(id);
  if (it == connections_.end() || it->second->phase != Connection::Phase::handling) return;
  respond(*it->second, std::move(reply));
}

void LineServer::respond(Connection& c, std::string reply) {
  c.phase = Connection::Phase::replying;
  c.out = std::move(reply) + "\n";
  c.written = 0;
  sd_event_source_set_io_events(c.io, EPOLLOUT);
  sd_event_source_set_enabled(c.io, SD_EVENT_ON);
  sd_event_source_set_time(c.deadline, now_plus(event_, limits_.write_deadline));
  sd_event_source_set_enabled(c.deadline, SD_EVENT_ONESHOT);
  write_some(c);
}

void LineServer::write_some(Connection& c) {
  while (c.written < c.out.size()) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // EPOLLOUT wakes us again
      if (errno == EINTR) continue;
      break;
    }
    c.written += static_cast<std::size_t>(n);
  }
  close(c.id);
}

void LineServer::close(ConnectionId id) {
  const auto it = connections_.find(id);
  if (it == connections_.end()) return;
  const auto peer = per_peer_.find(it->second->address);
  if (peer != per_peer_.end() && --peer->second == 0) per_peer_.erase(peer);
  connections_.erase(it);
  if (connections_.empty() && on_idle_) on_idle_();
}

}  // namespace gaptrain::daemon
