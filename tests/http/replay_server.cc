#include "http/replay_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "seragen/base/strings.h"

namespace seragen::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

ScriptedReply ScriptedReply::Json(int status, std::string body, std::vector<HeaderPair> headers) {
  ScriptedReply r;
  r.status = status;
  r.headers = std::move(headers);
  r.headers.emplace_back("Content-Type", "application/json");
  r.chunks.push_back(std::move(body));
  return r;
}

ScriptedReply ScriptedReply::Sse(std::vector<std::string> pieces) {
  ScriptedReply r;
  r.headers.emplace_back("Content-Type", "text/event-stream");
  r.chunks = std::move(pieces);
  r.chunked_encoding = true;
  return r;
}

ScriptedReply ScriptedReply::WithAction(Action action) {
  ScriptedReply r;
  r.action = action;
  return r;
}

std::optional<std::string> ReceivedRequest::Header(const std::string& lower_name) const {
  for (const auto& [n, v] : headers)
    if (n == lower_name) return v;
  return std::nullopt;
}

namespace {
std::string ReasonPhrase(int status) {
  auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  return reason.empty() ? std::string("Status") : std::string(reason);
}
}  // namespace

// Member order matters: the io_context is destroyed before the state that
// sessions still touch while their pending handlers are destroyed.
struct ReplayServer::Impl {
  mutable std::mutex mu;
  std::map<std::string, std::deque<ScriptedReply>> queued;
  std::function<ScriptedReply(const ReceivedRequest&)> handler;
  std::vector<ReceivedRequest> received;
  std::atomic<std::size_t> accepted{0};
  std::atomic<std::size_t> open{0};
  int port = 0;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::thread thread;

  ScriptedReply Pick(const ReceivedRequest& req) {
    std::string path = req.target.substr(0, req.target.find('?'));
    std::function<ScriptedReply(const ReceivedRequest&)> h;
    {
      std::lock_guard<std::mutex> lock(mu);
      received.push_back(req);
      auto it = queued.find(path);
      if (it != queued.end() && !it->second.empty()) {
        ScriptedReply r = std::move(it->second.front());
        it->second.pop_front();
        return r;
      }
      h = handler;
    }
    if (h) return h(req);
    return ScriptedReply::Json(404,
                               R"({"error":{"message":"no scripted reply for )" + path + R"(","type":"not_found"}})");
  }

  void Accept();
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, ReplayServer::Impl* server)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), server_(server) {
    ++server_->open;
  }
  ~Session() { --server_->open; }

  void Read() {
    request_ = {};
    parser_.emplace();
    parser_->body_limit(64 * 1024 * 1024);
    bhttp::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;  // client closed or reset: session ends
      self->OnRequest();
    });
  }

 private:
  void OnRequest() {
    auto& msg = parser_->get();
    ReceivedRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    for (const auto& field : msg) {
      req.headers.emplace_back(AsciiLower(std::string(field.name_string())), std::string(field.value()));
    }
    req.body = msg.body();
    keep_alive_ = msg.keep_alive();
    reply_ = server_->Pick(req);
    if (reply_.delay.count() > 0) {
      timer_.expires_after(reply_.delay);
      timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->Act();
      });
    } else {
      Act();
    }
  }

  void Act() {
    using A = ScriptedReply::Action;
    switch (reply_.action) {
      case A::kReset: {
        beast::error_code ec;
        socket_.set_option(asio::socket_base::linger(true, 0), ec);
        socket_.close(ec);
        return;
      }
      case A::kNeverAnswer: WaitForClose(); return;
      default: break;
    }
    std::size_t total = 0;
    for (const auto& c : reply_.chunks) total += c.size();
    std::string head = "HTTP/1.1 " + std::to_string(reply_.status) + " " + ReasonPhrase(reply_.status) + "\r\n";
    for (const auto& [n, v] : reply_.headers) head += n + ": " + v + "\r\n";
    bool partial = reply_.action == A::kStallMidBody || reply_.action == A::kCloseMidBody;
    if (reply_.endless) reply_.chunked_encoding = true;
    if (reply_.chunked_encoding && !partial) {
      head += "Transfer-Encoding: chunked\r\n";
    } else {
      head += "Content-Length: " + std::to_string(reply_.content_length.value_or(total + (partial ? 100 : 0))) + "\r\n";
    }
    if (!keep_alive_) head += "Connection: close\r\n";
    head += "\r\n";
    pieces_.clear();
    pieces_.push_back(std::move(head));
    for (const auto& c : reply_.chunks) {
      if (reply_.chunked_encoding && !partial) {
        if (c.empty()) continue;
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", c.size());
        pieces_.push_back(std::string(size) + c + "\r\n");
      } else {
        pieces_.push_back(c);
      }
    }
    if (reply_.chunked_encoding && !partial && !reply_.endless) pieces_.push_back("0\r\n\r\n");
    next_piece_ = 0;
    WriteNext();
  }

  void WriteNext() {
    if (reply_.endless && next_piece_ >= pieces_.size() && pieces_.size() > 1) next_piece_ = 1;  // the body again
    if (next_piece_ >= pieces_.size()) {
      Finished();
      return;
    }
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(pieces_[next_piece_]), [self](beast::error_code ec, std::size_t) {
      if (ec) return;
      ++self->next_piece_;
      bool more = self->reply_.endless || self->next_piece_ < self->pieces_.size();
      if (more && self->next_piece_ > 1 && self->reply_.chunk_interval.count() > 0) {
        self->timer_.expires_after(self->reply_.chunk_interval);
        self->timer_.async_wait([self](beast::error_code e) {
          if (!e) self->WriteNext();
        });
      } else {
        self->WriteNext();
      }
    });
  }

  void Finished() {
    using A = ScriptedReply::Action;
    if (reply_.action == A::kStallMidBody) {
      WaitForClose();
      return;
    }
    if (reply_.action == A::kCloseMidBody || !keep_alive_) {
      beast::error_code ec;
      socket_.shutdown(tcp::socket::shutdown_both, ec);
      socket_.close(ec);
      return;
    }
    Read();
  }

  // Keeps the session alive until the peer closes (or the server stops).
  void WaitForClose() {
    auto self = shared_from_this();
    drain_.resize(4096);
    socket_.async_read_some(asio::buffer(drain_), [self](beast::error_code ec, std::size_t) {
      if (ec) return;
      self->WaitForClose();
    });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  ReplayServer::Impl* server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::request<bhttp::string_body> request_;
  bool keep_alive_ = true;
  ScriptedReply reply_;
  std::vector<std::string> pieces_;
  std::size_t next_piece_ = 0;
  std::string drain_;
};

}  // namespace

void ReplayServer::Impl::Accept() {
  acceptor.async_accept([self = this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
    } else {
      ++self->accepted;
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), self)->Read();
    }
    self->Accept();
  });
}

ReplayServer::ReplayServer() : impl_(std::make_unique<Impl>()) {
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen(4096);
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->Accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

ReplayServer::~ReplayServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  // ~Impl destroys the io_context, and with it every pending handler and
  // the sessions (and sockets) they own.
}

int ReplayServer::port() const { return impl_->port; }
std::string ReplayServer::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->port); }

void ReplayServer::Enqueue(const std::string& path, ScriptedReply reply) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->queued[path].push_back(std::move(reply));
}

void ReplayServer::SetHandler(std::function<ScriptedReply(const ReceivedRequest&)> handler) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->handler = std::move(handler);
}

std::vector<ReceivedRequest> ReplayServer::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->received;
}
std::size_t ReplayServer::request_count() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->received.size();
}
std::size_t ReplayServer::accepted_connections() const { return impl_->accepted.load(); }
std::size_t ReplayServer::open_connections() const { return impl_->open.load(); }

}  // namespace seragen::testing
