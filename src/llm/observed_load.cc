#include "seragen/llm/observed_load.h"

#include <algorithm>

namespace seragen::llm {

double ObservedLoad::Estimate(Track& t, const EndpointOccupancy& o) const {
  t.history.emplace_back(o.answer_s, o.completion_tokens);
  while (t.history.size() > options_.span + 1) t.history.pop_front();
  const std::size_t now = t.samples++;
  while (!t.lows.empty() && now - t.lows.front().first >= options_.baseline_span) t.lows.pop_front();
  const double seconds = t.history.back().first - t.history.front().first;
  const std::int64_t tokens = t.history.back().second - t.history.front().second;
  if (tokens < options_.min_tokens || seconds <= 0) return t.waiting_share;
  const double per_token = seconds / static_cast<double>(tokens);
  while (!t.lows.empty() && t.lows.back().second >= per_token) t.lows.pop_back();
  t.lows.emplace_back(now, per_token);
  const double service = t.lows.front().second;
  t.waiting_share = std::clamp(1 - service * (1 + options_.tolerance) / per_token, 0.0, 1.0);
  return t.waiting_share;
}

std::vector<EndpointLoad> ObservedLoad::Update(const std::vector<EndpointState>& endpoints) {
  tracks_.resize(endpoints.size());
  std::vector<EndpointLoad> out;
  out.reserve(endpoints.size());
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const double share = Estimate(tracks_[i], endpoints[i].occupancy);
    const double outstanding = std::max(0, endpoints[i].outstanding);
    out.push_back({outstanding * (1 - share), outstanding * share});
  }
  return out;
}

}  // namespace seragen::llm
