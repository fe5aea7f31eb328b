// A loopback HTTP server for the remote-source tests (http_client_test,
// remote_test): each request is answered by a function of the test, and
// a 1000-byte object of known bytes answers range requests.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quiver/buffer.h"

namespace quiver::io::test {

// Byte i of the served object.
inline char ObjectByte(int64_t i) { return static_cast<char>('a' + i % 26); }

// Answers each request (read up to its blank line) with what `handler`
// returns for it; an empty answer drops the connection.
class LoopbackServer {
 public:
  using Handler = std::function<std::string(const std::string& request, int number)>;
  explicit LoopbackServer(Handler handler) : handler_(std::move(handler)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(listener_, 64);
    thread_ = std::thread([this] { Accept(); });
  }
  // Closes its connections too: the clients' connection cache (one per
  // process) keeps idle ones open, as a real server would see them.
  ~LoopbackServer() {
    stop_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int fd : open_) shutdown(fd, SHUT_RDWR);
    }
    for (std::thread& t : connections_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/object"; }
  int requests() const { return count_.load(); }

 private:
  void Accept() {
    while (!stop_) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard<std::mutex> lock(mutex_);
      open_.push_back(fd);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }
  // Closes `fd` once the destructor can no longer shut it down.
  void Close(int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    open_.erase(std::find(open_.begin(), open_.end(), fd));
    close(fd);
  }
  void Serve(int fd) {
    std::string pending;
    char chunk[4096];
    while (true) {
      size_t end;
      while ((end = pending.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n <= 0) {
          Close(fd);
          return;
        }
        pending.append(chunk, static_cast<size_t>(n));
      }
      const std::string request = pending.substr(0, end + 4);
      pending.erase(0, end + 4);
      const std::string answer = handler_(request, count_++);
      // send, not write: a client gone (or a shut-down socket) is no SIGPIPE.
      if (answer.empty() || send(fd, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) break;
    }
    Close(fd);
  }

  Handler handler_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::mutex mutex_;
  std::thread thread_;
  std::vector<std::thread> connections_;
  std::vector<int> open_;  // accepted and not yet closed (under mutex_)
};

// A 206 for the "Range: bytes=A-B" (or "bytes=-N") of `request` from an
// object of `size` bytes.
inline std::string RangeAnswer(const std::string& request, int64_t size = 1000) {
  const size_t at = request.find("Range: bytes=") + 13;
  int64_t first = 0;
  int64_t last = 0;
  if (request[at] == '-') {  // the last N bytes
    first = std::max<int64_t>(size - std::stoll(request.substr(at + 1)), 0);
    last = size - 1;
  } else {
    first = std::stoll(request.substr(at));
    last = std::min<int64_t>(std::stoll(request.substr(request.find('-', at) + 1)), size - 1);
  }
  std::string body;
  for (int64_t i = first; i <= last; ++i) body += ObjectByte(i);
  return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) + "-" +
         std::to_string(last) + "/" + std::to_string(size) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

inline std::string Expected(int64_t offset, int64_t length) {
  std::string out;
  for (int64_t i = offset; i < offset + length; ++i) out += ObjectByte(i);
  return out;
}

inline std::string Text(const BufferPtr& buffer) {
  return std::string(reinterpret_cast<const char*>(buffer->data()),
                     static_cast<size_t>(buffer->size()));
}

}  // namespace quiver::io::test
