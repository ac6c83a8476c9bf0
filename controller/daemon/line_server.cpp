#include "line_server.hpp"

#include <arpa/inet.h>
#include <json/writer.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace gaptrain::daemon {

struct LineServer::Connection {
  LineServer* server = nullptr;
  int fd = -1;
  std::string peer;
  sd_event_source* io = nullptr;
  sd_event_source* deadline = nullptr;
  std::string in;
  std::string out;
  std::size_t written = 0;
  bool replying = false;

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

std::uint64_t now_plus(sd_event* event, std::chrono::milliseconds delay) {
  std::uint64_t now = 0;
  sd_event_now(event, CLOCK_MONOTONIC, &now);
  return now + static_cast<std::uint64_t>(delay.count()) * 1000U;
}

}  // namespace

std::string error_reply(std::string_view error) {
  Json::Value reply(Json::objectValue);
  reply["ok"] = false;
  reply["error"] = std::string(error);
  Json::StreamWriterBuilder writer;
  writer["indentation"] = "";
  return Json::writeString(writer, reply);
}

LineServer::LineServer(sd_event* event, Handler handler, Refusal refusal, Limits limits)
    : event_(sd_event_ref(event)),
      handler_(std::move(handler)),
      refusal_(std::move(refusal)),
      limits_(limits) {}

LineServer::~LineServer() {
  connections_.clear();
  stop_listening();
  sd_event_unref(event_);
}

void LineServer::listen(const ListenAddress& address) {
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
  if (fd < 0) throw std::system_error(errno, std::generic_category(), where);
  const int one = 1;
  // A restarted daemon must rebind at once even with connections of the old one in TIME_WAIT.
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) < 0 ||
      ::listen(fd, SOMAXCONN) < 0) {
    const int saved = errno;
    ::close(fd);
    throw std::system_error(saved, std::generic_category(), where);
  }
  sd_event_source* source = nullptr;
  const int r = sd_event_add_io(event_, &source, fd, EPOLLIN, &LineServer::on_accept, this);
  if (r < 0) {
    ::close(fd);
    throw std::system_error(-r, std::generic_category(), where);
  }
  stop_listening();
  listen_fd_ = fd;
  listen_source_ = source;
}

void LineServer::stop_listening() {
  listen_source_ = sd_event_source_disable_unref(listen_source_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

int LineServer::on_accept(sd_event_source* /*source*/, int /*fd*/, std::uint32_t /*events*/,
                          void* self) {
  static_cast<LineServer*>(self)->accept_all();
  return 0;
}

void LineServer::accept_all() {
  for (;;) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: all taken; other errors (EMFILE...): retried on next wakeup
    auto connection = std::make_unique<Connection>();
    connection->server = this;
    connection->fd = fd;
    connection->peer = peer_name(address);
    if (accept_filter_ && !accept_filter_(connection->peer)) continue;  // closed by ~Connection
    if (sd_event_add_io(event_, &connection->io, fd, EPOLLIN, &LineServer::on_io,
                        connection.get()) < 0 ||
        sd_event_add_time(event_, &connection->deadline, CLOCK_MONOTONIC,
                          now_plus(event_, limits_.read_deadline), 0, &LineServer::on_deadline,
                          connection.get()) < 0) {
      continue;  // the Connection's destructor closes fd
    }
    connections_[fd] = std::move(connection);
  }
}

int LineServer::on_io(sd_event_source* /*source*/, int /*fd*/, std::uint32_t /*events*/,
                      void* connection) {
  auto& c = *static_cast<Connection*>(connection);
  if (c.replying) {
    c.server->write_some(c);
  } else {
    c.server->read_some(c);
  }
  return 0;
}

int LineServer::on_deadline(sd_event_source* /*source*/, std::uint64_t /*usec*/, void* connection) {
  auto& c = *static_cast<Connection*>(connection);
  LineServer& server = *c.server;
  if (c.replying) {  // the client does not read its reply: nothing more to say to it
    server.close(c.fd);
    return 0;
  }
  const std::string reason = "no complete request line within " +
                             std::to_string(server.limits_.read_deadline.count()) + " ms";
  server.refusal_(c.peer, reason);
  server.respond(c, error_reply(reason));
  return 0;
}

void LineServer::read_some(Connection& c) {
  std::array<char, 8192> buffer{};
  for (;;) {
    const ssize_t n = ::recv(c.fd, buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == EINTR) continue;
      close(c.fd);
      return;
    }
    const bool eof = n == 0;
    c.in.append(buffer.data(), static_cast<std::size_t>(n));
    const auto newline = c.in.find('\n');
    // Over the cap whether or not its end came in the same read.
    const std::size_t line_length = newline == std::string::npos ? c.in.size() : newline;
    if (line_length > limits_.max_line) {
      const std::string reason =
          "request line longer than " + std::to_string(limits_.max_line) + " bytes";
      refusal_(c.peer, reason);
      respond(c, error_reply(reason));
      return;
    }
    if (newline != std::string::npos || (eof && !c.in.empty())) {
      // A client that half-closes without the final '\n' still gets its answer.
      std::string_view line(c.in.data(), newline == std::string::npos ? c.in.size() : newline);
      if (line.ends_with('\r')) line.remove_suffix(1);
      respond(c, handler_(line, c.peer));
      return;
    }
    if (eof) {
      close(c.fd);
      return;
    }
  }
}

void LineServer::respond(Connection& c, std::string reply) {
  c.replying = true;
  c.out = std::move(reply) + "\n";
  c.written = 0;
  sd_event_source_set_io_events(c.io, EPOLLOUT);
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
  close(c.fd);
}

void LineServer::close(int fd) {
  connections_.erase(fd);
  if (connections_.empty() && on_idle_) on_idle_();
}

}  // namespace gaptrain::daemon
