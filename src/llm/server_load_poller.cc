#include "seragen/llm/server_load_poller.h"

namespace seragen::llm {
namespace {
constexpr std::size_t kMaxMetricsBytes = std::size_t{8} << 20;
}  // namespace

ServerLoadPoller::ServerLoadPoller(http::Client& http, const Clock& clock, std::vector<EndpointOptions> endpoints,
                                   std::chrono::milliseconds timeout)
    : http_(http),
      clock_(clock),
      endpoints_(std::move(endpoints)),
      timeout_(timeout),
      shared_(std::make_shared<Shared>()) {
  shared_->slots.resize(endpoints_.size());
  calls_.resize(endpoints_.size());
}

ServerLoadPoller::~ServerLoadPoller() {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->slots.clear();  // answers still in flight find no slot
  }
  for (auto& call : calls_) {
    if (call) call->Cancel();
  }
}

void ServerLoadPoller::Poll() {
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      if (i >= shared_->slots.size() || shared_->slots[i].pending) continue;
      shared_->slots[i].pending = true;
    }
    http::Request req = ProbeRequest(endpoints_[i], ServerRoot(endpoints_[i].base_url) + "/metrics", timeout_);
    req.max_body_bytes = kMaxMetricsBytes;
    std::weak_ptr<Shared> weak = shared_;
    const Clock* clock = &clock_;
    calls_[i] = http_.Send(std::move(req), [weak, i, clock](http::Response response) {
      std::optional<ServerLoad> load;
      if (response.transport_ok() && response.status == 200) {
        if (auto parsed = ServerLoadFromMetrics(response.body); parsed.ok()) load = std::move(*parsed);
      }
      auto shared = weak.lock();
      if (!shared) return;
      std::lock_guard<std::mutex> lock(shared->mu);
      if (i >= shared->slots.size()) return;
      shared->slots[i] = {std::move(load), clock->Now(), false};
    });
  }
}

std::vector<std::optional<ServerLoad>> ServerLoadPoller::Latest(std::chrono::milliseconds max_age) const {
  std::vector<std::optional<ServerLoad>> out(endpoints_.size());
  const auto now = clock_.Now();
  std::lock_guard<std::mutex> lock(shared_->mu);
  for (std::size_t i = 0; i < shared_->slots.size(); ++i) {
    const Slot& s = shared_->slots[i];
    if (s.load && now - s.at <= max_age) out[i] = s.load;
  }
  return out;
}

}  // namespace seragen::llm
