// asio + curl multi ("asiohiper" pattern with descriptor ownership in asio):
// - CURLOPT_OPENSOCKETFUNCTION creates each socket and wraps it in an asio
//   stream_descriptor; CURLOPT_CLOSESOCKETFUNCTION lets asio close it, so
//   epoll never holds a stale registration for a reused fd number.
// - CURLMOPT_SOCKETFUNCTION only records interest and arms async waits;
//   CURLMOPT_TIMERFUNCTION only arms a steady_timer. curl is called back
//   (curl_multi_socket_action) from asio completion handlers only.
// - Teardown: curl_multi_cleanup runs on the loop thread while the socket
//   map is alive (it closes cached connections through close_cb).
#include "seragen/http/curl_client.h"

#include <sys/socket.h>
#include <unistd.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <cctype>
#include <mutex>
#include <unordered_map>

#include "http/curl_handles.h"
#include "seragen/loop/asio_context.h"

namespace seragen::http {

namespace asio = boost::asio;
using internal::CurlEasy;
using internal::CurlMulti;
using internal::CurlSlist;

namespace internal {
void EnsureCurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}
}  // namespace internal

namespace {

struct Socket {
  Socket(asio::io_context& io, int fd) : descriptor(io, fd), fd(fd) {}
  asio::posix::stream_descriptor descriptor;
  int fd;
  int want = 0;
  bool waiting_read = false;
  bool waiting_write = false;
  bool closed = false;
};

TransportError MapCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_OK: return TransportError::kNone;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return TransportError::kBadUrl;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return TransportError::kResolveFailed;
    case CURLE_COULDNT_CONNECT: return TransportError::kConnectFailed;
    case CURLE_OPERATION_TIMEDOUT: return TransportError::kTimeout;
    case CURLE_SEND_ERROR: return TransportError::kSendFailed;
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return TransportError::kConnectionLost;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return TransportError::kTls;
    case CURLE_WRITE_ERROR: return TransportError::kAborted;
    default: return TransportError::kOther;
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

struct CurlClient::Impl : std::enable_shared_from_this<CurlClient::Impl> {
  struct Transfer {
    std::uint64_t id = 0;
    Impl* owner = nullptr;
    CurlEasy easy;
    CurlSlist header_list;
    Request request;
    Response response;
    std::function<void(Response)> done;
    char error_buffer[CURL_ERROR_SIZE] = {0};
    std::size_t body_bytes = 0;                      // received so far, streamed or collected
    std::size_t header_bytes = 0;                    // all header lines so far
    TransportError cap_hit = TransportError::kNone;  // set by a callback that stopped the transfer
  };

  Impl(asio::io_context& io, CurlClientOptions options) : io(io), timer(io), options(std::move(options)) {}

  asio::io_context& io;
  asio::steady_timer timer;
  CurlClientOptions options;
  CurlMulti multi;
  bool shut_down = false;
  int running = 0;
  std::unordered_map<curl_socket_t, std::shared_ptr<Socket>> sockets;
  std::unordered_map<std::uint64_t, std::unique_ptr<Transfer>> transfers;
  std::atomic<std::uint64_t> next_id{1};
  std::atomic<std::size_t> in_flight_count{0};
  std::atomic<std::size_t> open_socket_count{0};

  // ---- setup / teardown (loop thread) ----
  void Init() {
    internal::EnsureCurlGlobalInit();
    multi.reset(curl_multi_init());
    CURLM* m = multi.get();
    curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &Impl::SocketCallback);
    curl_multi_setopt(m, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &Impl::TimerCallback);
    curl_multi_setopt(m, CURLMOPT_TIMERDATA, this);
    if (options.max_total_connections > 0)
      curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, options.max_total_connections);
    if (options.max_host_connections > 0)
      curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, options.max_host_connections);
    if (options.max_idle_connections > 0) curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, options.max_idle_connections);
  }

  void Shutdown() {
    if (shut_down) return;
    shut_down = true;
    timer.cancel();
    // Finish every transfer with kCancelled, then release curl while the
    // socket map is still alive.
    auto pending = std::move(transfers);
    transfers.clear();
    for (auto& [id, t] : pending) {
      curl_multi_remove_handle(multi.get(), t->easy.get());
    }
    in_flight_count = 0;
    for (auto& [id, t] : pending) {
      t->response.error = TransportError::kCancelled;
      t->response.error_message = "HTTP client shut down";
      auto done = std::move(t->done);
      auto response = std::move(t->response);
      t.reset();
      if (done) done(std::move(response));
    }
    multi.reset();
    for (auto& [fd, s] : sockets) {
      s->closed = true;
      boost::system::error_code ec;
      s->descriptor.close(ec);
    }
    sockets.clear();
    open_socket_count = 0;
  }

  // ---- transfers (loop thread) ----
  void Start(std::unique_ptr<Transfer> t) {
    if (shut_down) {
      Fail(*t, TransportError::kCancelled, "HTTP client shut down");
      return;
    }
    CURL* e = t->easy.get();
    const Request& r = t->request;
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error_buffer);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Impl::WriteCallback);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Impl::HeaderCallback);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &Impl::OpenSocketCallback);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &Impl::CloseSocketCallback);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(r.connect_timeout.count()));
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_MAXAGE_CONN, static_cast<long>(options.max_idle_age.count()));
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, options.allow_http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, options.verify_tls ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, options.verify_tls ? 2L : 0L);
    if (!options.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (r.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    } else if (r.method != "GET") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    }
    curl_slist* list = nullptr;
    for (const auto& [name, value] : r.headers) {
      std::string line = name + ": " + value;
      list = curl_slist_append(list, line.c_str());
    }
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    t->header_list.reset(list);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);

    Transfer* raw = t.get();
    transfers.emplace(t->id, std::move(t));
    CURLMcode mc = curl_multi_add_handle(multi.get(), e);
    if (mc != CURLM_OK) {
      auto owned = std::move(transfers[raw->id]);
      transfers.erase(raw->id);
      Fail(*owned, TransportError::kOther, curl_multi_strerror(mc));
      return;
    }
    in_flight_count = transfers.size();
  }

  void Fail(Transfer& t, TransportError error, std::string message) {
    t.response.error = error;
    t.response.error_message = std::move(message);
    auto done = std::move(t.done);
    if (done) done(std::move(t.response));
  }

  void Cancel(std::uint64_t id) {
    auto it = transfers.find(id);
    if (it == transfers.end()) return;
    auto t = std::move(it->second);
    transfers.erase(it);
    in_flight_count = transfers.size();
    curl_multi_remove_handle(multi.get(), t->easy.get());
    Fail(*t, TransportError::kCancelled, "request cancelled");
  }

  void ReapFinished() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      CURLcode code = msg->data.result;
      Transfer* raw = nullptr;
      curl_easy_getinfo(e, CURLINFO_PRIVATE, &raw);
      curl_multi_remove_handle(multi.get(), e);
      if (raw == nullptr) continue;
      auto it = transfers.find(raw->id);
      if (it == transfers.end()) continue;
      auto t = std::move(it->second);
      transfers.erase(it);
      in_flight_count = transfers.size();
      Complete(*t, code);
    }
  }

  void Complete(Transfer& t, CURLcode code) {
    CURL* e = t.easy.get();
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    curl_off_t us = 0;
    if (curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &us) == CURLE_OK)
      t.response.timings.connect = std::chrono::microseconds(us);
    if (curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &us) == CURLE_OK)
      t.response.timings.first_byte = std::chrono::microseconds(us);
    if (curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &us) == CURLE_OK)
      t.response.timings.total = std::chrono::microseconds(us);
    t.response.error = MapCurlCode(code);
    if (code != CURLE_OK) {
      std::string detail = t.error_buffer[0] ? t.error_buffer : curl_easy_strerror(code);
      t.response.error_message = detail;
      RefineError(t, code, detail);
    }
    auto done = std::move(t.done);
    if (done) done(std::move(t.response));
  }

  // Errors curl reports in its own terms, told in ours: a cap of ours, curl's
  // per-line header cap (reported as out of memory), a reply that is not HTTP
  // (reported as an unsupported protocol, like a bad URL scheme).
  static void RefineError(Transfer& t, CURLcode code, const std::string& detail) {
    Response& r = t.response;
    if (t.cap_hit == TransportError::kBodyTooLarge) {
      r.error = t.cap_hit;
      r.error_message = "the response body passed the cap of " + std::to_string(t.request.max_body_bytes) + " bytes";
    } else if (t.cap_hit == TransportError::kHeadersTooLarge) {
      r.error = t.cap_hit;
      r.error_message =
          "the response headers passed the cap of " + std::to_string(t.request.max_header_bytes) + " bytes";
    } else if (code == CURLE_OUT_OF_MEMORY && t.header_bytes > 0 && t.body_bytes == 0) {
      // curl says "Out of memory" for a header line over its 100 KiB limit.
      r.error = TransportError::kHeadersTooLarge;
      r.error_message =
          "a response header line is longer than the HTTP client accepts (curl's limit is 100 KiB; "
          "curl reported: " +
          detail + ")";
    } else if (code == CURLE_WEIRD_SERVER_REPLY || (code == CURLE_UNSUPPORTED_PROTOCOL && RequestWasSent(t))) {
      r.error = TransportError::kBadResponse;
      r.error_message = "the server's reply is not valid HTTP (" + detail + ")";
    }
  }

  static bool RequestWasSent(Transfer& t) {
    curl_off_t us = 0;
    return curl_easy_getinfo(t.easy.get(), CURLINFO_PRETRANSFER_TIME_T, &us) == CURLE_OK && us > 0;
  }

  // ---- curl callbacks (called from inside curl; never call curl here) ----
  // Adds `bytes` to `*seen`; past a nonzero `cap`, records `error` as the
  // transfer's cap hit and returns true (the callback then fails the write).
  static bool PassesCap(Transfer* t, size_t bytes, size_t* seen, size_t cap, TransportError error) {
    *seen += bytes;
    if (cap == 0 || *seen <= cap) return false;
    t->cap_hit = error;
    return true;
  }

  static size_t WriteCallback(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string_view chunk(data, size * n);
    const size_t bytes = chunk.size();
    if (PassesCap(t, bytes, &t->body_bytes, t->request.max_body_bytes, TransportError::kBodyTooLarge)) {
      return 0;  // CURLE_WRITE_ERROR
    }
    if (t->request.on_body_chunk) {
      long status = 0;
      curl_easy_getinfo(t->easy.get(), CURLINFO_RESPONSE_CODE, &status);
      if (status >= 200 && status < 300) {
        if (!t->request.on_body_chunk(chunk)) return 0;  // CURLE_WRITE_ERROR
        return bytes;
      }
    }
    t->response.body.append(chunk);
    return bytes;
  }

  static size_t HeaderCallback(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string_view line(data, size * n);
    if (PassesCap(t, line.size(), &t->header_bytes, t->request.max_header_bytes, TransportError::kHeadersTooLarge)) {
      return 0;  // CURLE_WRITE_ERROR
    }
    if (line.rfind("HTTP/", 0) == 0) {
      t->response.headers.clear();  // new status line (1xx, redirect)
      return line.size();
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return line.size();
    t->response.headers.emplace_back(Lower(Trim(line.substr(0, colon))), Trim(line.substr(colon + 1)));
    return line.size();
  }

  static curl_socket_t OpenSocketCallback(void* user, curlsocktype, curl_sockaddr* address) {
    auto* self = static_cast<Impl*>(user);
    int fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) return CURL_SOCKET_BAD;
    self->sockets[fd] = std::make_shared<Socket>(self->io, fd);
    self->open_socket_count = self->sockets.size();
    return fd;
  }

  static int CloseSocketCallback(void* user, curl_socket_t fd) {
    auto* self = static_cast<Impl*>(user);
    auto it = self->sockets.find(fd);
    if (it == self->sockets.end()) {
      ::close(fd);
      return 0;
    }
    it->second->closed = true;
    boost::system::error_code ec;
    it->second->descriptor.close(ec);
    self->sockets.erase(it);
    self->open_socket_count = self->sockets.size();
    return 0;
  }

  static int SocketCallback(CURL*, curl_socket_t fd, int what, void* user, void*) {
    auto* self = static_cast<Impl*>(user);
    auto it = self->sockets.find(fd);
    if (it == self->sockets.end()) return 0;
    auto s = it->second;
    s->want = (what == CURL_POLL_REMOVE) ? 0 : what;
    if (s->want & CURL_POLL_IN) self->Arm(s, true);
    if (s->want & CURL_POLL_OUT) self->Arm(s, false);
    return 0;
  }

  static int TimerCallback(CURLM*, long timeout_ms, void* user) {
    auto* self = static_cast<Impl*>(user);
    self->timer.cancel();
    if (timeout_ms < 0) return 0;
    self->timer.expires_after(std::chrono::milliseconds(timeout_ms));
    std::weak_ptr<Impl> weak = self->weak_from_this();
    self->timer.async_wait([weak](const boost::system::error_code& ec) {
      auto me = weak.lock();
      if (ec || !me || me->shut_down) return;
      curl_multi_socket_action(me->multi.get(), CURL_SOCKET_TIMEOUT, 0, &me->running);
      me->ReapFinished();
    });
    return 0;
  }

  void Arm(const std::shared_ptr<Socket>& s, bool read) {
    bool& pending = read ? s->waiting_read : s->waiting_write;
    if (pending || s->closed) return;
    pending = true;
    std::weak_ptr<Impl> weak = weak_from_this();
    s->descriptor.async_wait(
        read ? asio::posix::stream_descriptor::wait_read : asio::posix::stream_descriptor::wait_write,
        [weak, s, read](const boost::system::error_code& ec) {
          (read ? s->waiting_read : s->waiting_write) = false;
          int mask = read ? CURL_POLL_IN : CURL_POLL_OUT;
          auto me = weak.lock();
          if (ec || !me || me->shut_down || s->closed || !(s->want & mask)) return;
          curl_multi_socket_action(me->multi.get(), s->fd, read ? CURL_CSELECT_IN : CURL_CSELECT_OUT, &me->running);
          me->ReapFinished();
          if (!s->closed && (s->want & mask)) me->Arm(s, read);
        });
  }
};

namespace {

class CurlCall final : public Call {
 public:
  CurlCall(std::weak_ptr<CurlClient::Impl> impl, std::uint64_t id) : impl_(std::move(impl)), id_(id) {}
  void Cancel() override {
    auto impl = impl_.lock();
    if (!impl) return;
    asio::post(impl->io, [impl, id = id_] {
      if (!impl->shut_down) impl->Cancel(id);
    });
  }

 private:
  std::weak_ptr<CurlClient::Impl> impl_;
  std::uint64_t id_;
};

}  // namespace

CurlClient::CurlClient(loop::EventLoop& loop, CurlClientOptions options)
    : loop_(loop), impl_(std::make_shared<Impl>(loop::EventLoopAccess::IoContext(loop), std::move(options))) {
  loop_.RunSync([this] { impl_->Init(); });
}

CurlClient::~CurlClient() {
  loop_.RunSync([this] { impl_->Shutdown(); });
}

std::shared_ptr<Call> CurlClient::Send(Request request, std::function<void(Response)> done) {
  auto t = std::make_unique<Impl::Transfer>();
  t->id = impl_->next_id++;
  t->owner = impl_.get();
  t->easy.reset(curl_easy_init());
  t->request = std::move(request);
  t->done = std::move(done);
  auto call = std::make_shared<CurlCall>(impl_, t->id);
  auto impl = impl_;
  asio::post(impl->io, [impl, t = std::move(t)]() mutable { impl->Start(std::move(t)); });
  return call;
}

std::size_t CurlClient::InFlight() const { return impl_->in_flight_count.load(); }
std::size_t CurlClient::OpenSockets() const { return impl_->open_socket_count.load(); }

}  // namespace seragen::http
