// ServerLoadPoller: asks every endpoint for the load it publishes (GET
// {server root}/metrics, with the endpoint's headers; llm/server_load.h) and
// keeps each endpoint's latest answer, for `run.concurrency: auto`. A server
// that answers with anything but metrics it knows (an error status, another
// server's metrics, a refused body) has no load: the tuner then observes
// latency instead. The body is read up to 8 MiB.
//
// Thread-safety: Poll and Latest may be called from any thread; answers are
// handled on the http client's thread. `http` and `clock` must outlive the
// poller; answers arriving after its destruction are dropped.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/http/http_client.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/server_load.h"

namespace seragen::llm {

class ServerLoadPoller {
 public:
  ServerLoadPoller(http::Client& http, const Clock& clock, std::vector<EndpointOptions> endpoints,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  ~ServerLoadPoller();

  // Sends one request per endpoint whose previous one has been answered.
  void Poll();
  // Per endpoint (in the order given): its latest load when that came no
  // longer than `max_age` ago, else nullopt.
  std::vector<std::optional<ServerLoad>> Latest(std::chrono::milliseconds max_age) const;

 private:
  struct Slot {
    std::optional<ServerLoad> load;
    Clock::SteadyTime at{};
    bool pending = false;
  };
  struct Shared {
    std::mutex mu;
    std::vector<Slot> slots;
  };

  http::Client& http_;
  const Clock& clock_;
  std::vector<EndpointOptions> endpoints_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<Shared> shared_;
  std::vector<std::shared_ptr<http::Call>> calls_;
};

}  // namespace seragen::llm
