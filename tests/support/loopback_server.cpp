#include "loopback_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace gaptrain::test {

namespace {

int bound_socket(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("bind failed");
  }
  port = ntohs(address.sin_port);
  return fd;
}

// Polls in short slices so that the destructor can stop the thread promptly.
bool readable(int fd, const std::atomic<bool>& stop) {
  while (!stop.load()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) return true;
  }
  return false;
}

}  // namespace

LoopbackServer::LoopbackServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = bound_socket(port_);
  if (::listen(listen_fd_, 16) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("listen failed");
  }
  thread_ = std::thread([this] { serve(); });
}

LoopbackServer::~LoopbackServer() {
  stop_.store(true);
  thread_.join();
  ::close(listen_fd_);
}

void LoopbackServer::serve() {
  while (readable(listen_fd_, stop_)) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    connections_.fetch_add(1);
    std::string line;
    char buffer[4096];
    bool complete = false;
    while (!complete && readable(fd, stop_)) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      line.append(buffer, static_cast<std::size_t>(n));
      complete = line.find('\n') != std::string::npos;
    }
    if (complete) {
      const std::optional<std::string> reply = handler_(line.substr(0, line.find('\n')));
      if (!reply) {
        while (!stop_.load()) ::usleep(10'000);  // hold the connection, answer nothing
      } else {
        ::send(fd, reply->data(), reply->size(), MSG_NOSIGNAL);
      }
    }
    ::close(fd);
  }
}

std::uint16_t unused_port() {
  std::uint16_t port = 0;
  ::close(bound_socket(port));
  return port;
}

}  // namespace gaptrain::test
