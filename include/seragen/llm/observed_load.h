// ObservedLoad: each endpoint's running and waiting requests as the client
// sees them, for servers that publish no load of their own (the fallback of
// `run.concurrency: auto`). A request's time per output token is the
// server's service time plus its queueing; the lowest time of the last half
// hour is taken as the service time, and the share above it (past a tolerance for
// the slower decoding of a fuller batch) as the share of the outstanding
// requests that wait. Pure; fed with EndpointPool snapshots at a steady
// interval.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "seragen/llm/concurrency_tuner.h"
#include "seragen/llm/endpoint_pool.h"

namespace seragen::llm {

struct ObservedLoadOptions {
  std::size_t span = 5;           // samples the time per token is measured over (10 s at 2 s)
  std::int64_t min_tokens = 256;  // fewer output tokens in the span: the previous estimate stands
  double tolerance = 0.15;        // time per token this much above the service time is not queueing
  // The service time is the lowest time per token of the last this many
  // samples (30 min at 2 s): a server that stays slower is its new speed
  // after that, and a faster one at once.
  std::size_t baseline_span = 900;
};

class ObservedLoad {
 public:
  explicit ObservedLoad(ObservedLoadOptions options = {}) : options_(options) {}
  // One sample: every endpoint's outstanding requests split into running and
  // waiting. Endpoints are matched by position.
  std::vector<EndpointLoad> Update(const std::vector<EndpointState>& endpoints);

 private:
  struct Track {
    std::deque<std::pair<double, std::int64_t>> history;  // (answer_s, completion_tokens), oldest first
    // Times per token of the last baseline_span samples that could be the
    // lowest (sample number, seconds per token), increasing: the front is
    // the service time.
    std::deque<std::pair<std::size_t, double>> lows;
    std::size_t samples = 0;
    double waiting_share = 0;
  };
  double Estimate(Track& t, const EndpointOccupancy& o) const;

  ObservedLoadOptions options_;
  std::vector<Track> tracks_;
};

}  // namespace seragen::llm
