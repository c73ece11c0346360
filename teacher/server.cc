#include "teacher/server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "teacher/body_log.h"
#include "teacher/prompt_set.h"
#include "teacher/responder.h"
#include "teacher/strict_validation.h"
#include "teacher/wire_format.h"

namespace seragen::teacher {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr std::size_t kBodyLimit = 256u << 20;  // a long agent history fits easily

struct Shared {
  std::string api_key;  // non-empty: /v1/ requests must carry "Authorization: Bearer <api_key>"
  std::unique_ptr<Responder> responder;
  RequestLog log;
  BodyLog bodies;
};

std::string ChunkFrame(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return std::string(size) + data + "\r\n";
}

// One connection: reads requests one after another and carries out plans.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), timer_(stream_.get_executor()), shared_(std::move(shared)) {}

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return Close();
    auto expect = parser_->get()[http::field::expect];
    if (beast::iequals(expect, "100-continue")) {
      out_ = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code e, std::size_t) {
        if (e) return self->Close();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->Handle();
    });
  }

  void Handle() {
    http::request<http::string_body> req = parser_->release();
    keep_alive_ = req.keep_alive();
    std::string target(req.target());
    target = target.substr(0, target.find('?'));
    const bool get = req.method() == http::verb::get;
    const bool post = req.method() == http::verb::post;
    if (target == "/health") {
      if (!get) return SendSimple(405, R"({"error":{"message":"use GET","type":"invalid_request_error","code":405}})");
      Log("health");
      return SendSimple(200, R"({"status":"ok"})");
    }
    if (!shared_->api_key.empty() && target.rfind("/v1/", 0) == 0 &&
        std::string(req[http::field::authorization]) != "Bearer " + shared_->api_key) {
      Log("unauthorized");
      return SendSimple(
          401,
          R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})");
    }
    if (target == "/v1/models") {
      if (!get) return SendSimple(405, R"({"error":{"message":"use GET","type":"invalid_request_error","code":405}})");
      Log("models");
      return SendSimple(200, shared_->responder->ModelsBody());
    }
    if (target == "/v1/chat/completions") {
      if (!post)
        return SendSimple(405, R"({"error":{"message":"use POST","type":"invalid_request_error","code":405}})");
      shared_->bodies.Append(req.body());
      plan_ = shared_->responder->PlanChat(req.body());
      shared_->log.Record(plan_.record);
      return Execute();
    }
    SendSimple(
        404,
        R"({"error":{"message":"unknown path; the scripted teacher serves /v1/chat/completions, /v1/models and /health","type":"invalid_request_error","code":404}})");
  }

  void Log(const char* kind) {
    RequestRecord r;
    r.kind = kind;
    r.fault = "none";
    shared_->log.Record(r);
  }

  void Execute() {
    switch (plan_.fault) {
      case FaultKind::kReset: {
        beast::error_code ec;
        stream_.socket().set_option(net::socket_base::linger(true, 0), ec);
        stream_.socket().close(ec);
        return;
      }
      case FaultKind::kHang: return After(plan_.hang, [self = shared_from_this()] { self->Close(); });
      default: break;
    }
    After(plan_.delay, [self = shared_from_this()] {
      if (self->plan_.fault == FaultKind::kEndless) return self->SendEndless();
      if (self->plan_.stream) return self->StartStream();
      if (self->plan_.fault == FaultKind::kTruncate) return self->SendTruncated();
      self->SendSimple(self->plan_.status, std::move(self->plan_.body), self->plan_.headers);
    });
  }

  template <typename Fn>
  void After(std::chrono::milliseconds delay, Fn fn) {
    if (delay.count() <= 0) return fn();
    timer_.expires_after(delay);
    timer_.async_wait([fn = std::move(fn)](beast::error_code ec) {
      if (!ec) fn();
    });
  }

  void SendSimple(int status, std::string body, const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(status), 11);
    res->set(http::field::server, std::string(ServerHeaderFor(shared_->responder->options().strict)));
    res->set(http::field::content_type, "application/json");
    for (const auto& [name, value] : headers) res->set(name, value);
    res->keep_alive(keep_alive_);
    res->body() = std::move(body);
    res->prepare_payload();
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->AfterResponse();
    });
  }

  // Promises the whole body in Content-Length, sends half, then closes.
  void SendTruncated() {
    out_ = "HTTP/1.1 200 OK\r\nServer: " + std::string(ServerHeaderFor(shared_->responder->options().strict)) +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(plan_.body.size()) + "\r\n\r\n" +
           plan_.body.substr(0, plan_.cut_at);
    net::async_write(stream_, net::buffer(out_),
                     [self = shared_from_this()](beast::error_code, std::size_t) { self->Close(); });
  }

  // A chunked body that never ends; stops when the client goes away.
  void SendEndless() {
    out_ = "HTTP/1.1 200 OK\r\nServer: " + std::string(ServerHeaderFor(shared_->responder->options().strict)) +
           "\r\nContent-Type: " + plan_.content_type + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    if (!plan_.body.empty()) out_ += ChunkFrame(plan_.body);
    net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->out_ = ChunkFrame(self->plan_.endless_piece);
      self->WriteEndless();
    });
  }

  void WriteEndless() {
    net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->WriteEndless();
    });
  }

  void StartStream() {
    out_ = "HTTP/1.1 200 OK\r\nServer: " + std::string(ServerHeaderFor(shared_->responder->options().strict)) +
           "\r\nContent-Type: text/event-stream\r\n"
           "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n";
    out_ += keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    next_event_ = 0;
    net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->WriteEvent();
    });
  }

  void WriteEvent() {
    const bool cut = plan_.fault == FaultKind::kTruncate || plan_.fault == FaultKind::kMidstream;
    if (cut && next_event_ >= plan_.cut_at) {
      if (plan_.fault == FaultKind::kTruncate) return Close();  // no [DONE], no final chunk
      out_ = ChunkFrame(RenderStreamError("The scripted teacher injected an error in the middle of the stream.")) +
             "0\r\n\r\n";
      net::async_write(stream_, net::buffer(out_),
                       [self = shared_from_this()](beast::error_code, std::size_t) { self->Close(); });
      return;
    }
    if (next_event_ >= plan_.events.size()) {
      out_ = "0\r\n\r\n";
      net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec) return self->Close();
        self->AfterResponse();
      });
      return;
    }
    // Without a gap between events (zero latency), send everything that is
    // due in one write instead of one syscall per event.
    const std::size_t limit = cut ? plan_.cut_at : plan_.events.size();
    out_.clear();
    do {
      out_ += ChunkFrame(plan_.events[next_event_++]);
    } while (plan_.chunk_gap.count() <= 0 && next_event_ < limit);
    net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->After(self->plan_.chunk_gap, [self] { self->WriteEvent(); });
    });
  }

  void AfterResponse() {
    if (keep_alive_) return ReadHeader();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.socket().close(ec);
  }

  void Close() {
    beast::error_code ec;
    timer_.cancel();
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  net::steady_timer timer_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  ResponsePlan plan_;
  std::string out_;
  std::size_t next_event_ = 0;
  bool keep_alive_ = true;
};

}  // namespace

struct Server::Impl {
  std::unique_ptr<net::io_context> ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::shared_ptr<Shared> shared;
  int port = 0;

  void Accept() {
    acceptor->async_accept(net::make_strand(*ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
      if (!ec) {
        beast::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        std::make_shared<Session>(std::move(socket), shared)->Start();
      }
      Accept();
    });
  }
};

Server::Server() : impl_(std::make_unique<Impl>()) {}

Server::~Server() { Stop(); }

Result<int> Server::Start(const TeacherOptions& options) {
  if (impl_->ioc) return FailedPreconditionError("teacher server: already started");
  SG_RETURN_IF_ERROR(ValidateOptions(options));
  SG_ASSIGN_OR_RETURN(PromptSet prompts, PromptSet::Load(options.prompts_dir));
  auto shared = std::make_shared<Shared>();
  std::shared_ptr<ScriptPolicy> script;
  if (!options.script_path.empty()) {
    SG_ASSIGN_OR_RETURN(Script loaded, LoadScriptFile(options.script_path));
    script = std::make_shared<ScriptPolicy>(std::move(loaded));
  }
  shared->api_key = options.api_key;
  shared->responder = std::make_unique<Responder>(options, std::move(prompts), std::move(script));
  if (!options.request_log_path.empty()) SG_RETURN_IF_ERROR(shared->log.OpenFile(options.request_log_path));
  if (!options.body_log_path.empty()) SG_RETURN_IF_ERROR(shared->bodies.Open(options.body_log_path));

  auto ioc = std::make_unique<net::io_context>(options.threads);
  auto acceptor = std::make_unique<tcp::acceptor>(*ioc);
  beast::error_code ec;
  auto address = net::ip::make_address(options.bind_address, ec);
  if (ec) return InvalidArgumentError("teacher.bind_address: '" + options.bind_address + "' is not an IP address");
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(options.listen_backlog, ec);
  if (ec) {
    return IoError("teacher server: cannot listen on " + options.bind_address + ":" + std::to_string(options.port) +
                   ": " + ec.message());
  }
  impl_->port = acceptor->local_endpoint().port();
  impl_->shared = std::move(shared);
  impl_->ioc = std::move(ioc);
  impl_->acceptor = std::move(acceptor);
  impl_->Accept();
  for (int i = 0; i < options.threads; ++i) {
    impl_->threads.emplace_back([ioc = impl_->ioc.get()] { ioc->run(); });
  }
  return impl_->port;
}

void Server::Stop() {
  if (!impl_ || !impl_->ioc) return;
  impl_->ioc->stop();
  for (std::thread& t : impl_->threads) t.join();
  impl_->threads.clear();
  beast::error_code ec;
  impl_->acceptor->close(ec);
  impl_->acceptor.reset();
  impl_->ioc.reset();  // destroys pending handlers, and with them every open connection
}

int Server::port() const { return impl_->port; }

RequestCounts Server::Counts() const { return impl_->shared ? impl_->shared->log.Counts() : RequestCounts{}; }

}  // namespace seragen::teacher
