#include "seragen/journal/occupancy.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"

namespace seragen::journal {

using nlohmann::json;

double EndpointOccupancyRecord::IdleSeconds() const {
  double total = 0;
  for (const auto& [cause, s] : idle_s) total += s;
  return total;
}

namespace {

// The fields of a ConcurrencyRecord, for EncodeConcurrency and its decoder.
struct CountField {
  const char* key;
  int ConcurrencyRecord::*member;
};
struct TextField {
  const char* key;
  std::string ConcurrencyRecord::*member;
};
constexpr CountField kConcurrencyCounts[] = {{"limit", &ConcurrencyRecord::limit},
                                             {"max_limit", &ConcurrencyRecord::max_limit},
                                             {"lowest", &ConcurrencyRecord::lowest},
                                             {"highest", &ConcurrencyRecord::highest}};
constexpr TextField kConcurrencyTexts[] = {{"mode", &ConcurrencyRecord::mode},
                                           {"bound_by", &ConcurrencyRecord::bound_by},
                                           {"bound_detail", &ConcurrencyRecord::bound_detail},
                                           {"load_source", &ConcurrencyRecord::load_source}};

json ConcurrencyJson(const ConcurrencyRecord& c) {
  json j = json::object();
  for (const TextField& f : kConcurrencyTexts) j[f.key] = c.*f.member;
  for (const CountField& f : kConcurrencyCounts) j[f.key] = c.*f.member;
  j["at_bound_s"] = c.at_bound_s;
  return j;
}

}  // namespace

std::string EncodeConcurrency(const ConcurrencyRecord& record) { return ConcurrencyJson(record).dump(); }

std::string EncodeOccupancy(const OccupancyRecord& r) {
  json endpoints = json::array();
  for (const auto& e : r.endpoints) {
    json& x = endpoints.emplace_back(json::object());
    x["endpoint"] = e.endpoint;
    x["capacity"] = e.capacity;
    x["in_flight"] = e.in_flight;
    x["peak_in_flight"] = e.peak_in_flight;
    x["tracked_s"] = e.tracked_s;
    x["in_flight_s"] = e.in_flight_s;
    x["idle_s"] = e.idle_s;
    x["prompt_tokens"] = e.prompt_tokens;
    x["cached_tokens"] = e.cached_tokens;
    x["affinity_kept"] = e.affinity_kept;
    x["affinity_moved_in"] = e.affinity_moved_in;
    x["affinity_started"] = e.affinity_started;
  }
  json j = {{"endpoints", endpoints}, {"held_s", r.held_s}, {"holds", r.holds}};
  if (!r.concurrency.empty()) j["concurrency"] = ConcurrencyJson(r.concurrency.front());
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

template <typename T>
Status Read(const json& j, const char* key, T* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  bool ok = std::is_floating_point_v<T> ? it->is_number() : (it->is_number_integer() || it->is_number_unsigned());
  if (!ok || (std::is_unsigned_v<T> && it->is_number_integer() && it->template get<std::int64_t>() < 0)) {
    return InvalidArgumentError(std::string("occupancy: ") + key + " is not a number of the right kind");
  }
  *out = it->template get<T>();
  return Status::Ok();
}

template <typename T>
Status ReadMap(const json& j, const char* key, std::map<std::string, T>* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_object()) return InvalidArgumentError(std::string("occupancy: ") + key + " is not an object");
  for (const auto& [name, value] : it->items()) SG_RETURN_IF_ERROR(Read(*it, name.c_str(), &(*out)[name]));
  return Status::Ok();
}

Result<EndpointOccupancyRecord> DecodeEndpoint(const json& j) {
  if (!j.is_object() || !j.contains("endpoint") || !j["endpoint"].is_string()) {
    return InvalidArgumentError("occupancy: an endpoint entry has no endpoint URL");
  }
  EndpointOccupancyRecord e;
  e.endpoint = j["endpoint"].get<std::string>();
  SG_RETURN_IF_ERROR(Read(j, "capacity", &e.capacity));
  SG_RETURN_IF_ERROR(Read(j, "in_flight", &e.in_flight));
  SG_RETURN_IF_ERROR(Read(j, "peak_in_flight", &e.peak_in_flight));
  SG_RETURN_IF_ERROR(Read(j, "tracked_s", &e.tracked_s));
  SG_RETURN_IF_ERROR(Read(j, "in_flight_s", &e.in_flight_s));
  SG_RETURN_IF_ERROR(ReadMap(j, "idle_s", &e.idle_s));
  SG_RETURN_IF_ERROR(Read(j, "prompt_tokens", &e.prompt_tokens));
  SG_RETURN_IF_ERROR(Read(j, "cached_tokens", &e.cached_tokens));
  SG_RETURN_IF_ERROR(Read(j, "affinity_kept", &e.affinity_kept));
  SG_RETURN_IF_ERROR(Read(j, "affinity_moved_in", &e.affinity_moved_in));
  SG_RETURN_IF_ERROR(Read(j, "affinity_started", &e.affinity_started));
  return e;
}

Status ReadText(const json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_string()) return InvalidArgumentError(std::string("occupancy: ") + key + " is not a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Result<ConcurrencyRecord> DecodeConcurrency(const json& j) {
  if (!j.is_object()) return InvalidArgumentError("occupancy: concurrency is not an object");
  ConcurrencyRecord c;
  for (const TextField& f : kConcurrencyTexts) SG_RETURN_IF_ERROR(ReadText(j, f.key, &(c.*f.member)));
  for (const CountField& f : kConcurrencyCounts) SG_RETURN_IF_ERROR(Read(j, f.key, &(c.*f.member)));
  SG_RETURN_IF_ERROR(Read(j, "at_bound_s", &c.at_bound_s));
  return c;
}

}  // namespace

Result<OccupancyRecord> DecodeOccupancy(std::string_view text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "occupancy.json", 4));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgumentError("occupancy: not a JSON object");
  OccupancyRecord r;
  if (auto it = j.find("endpoints"); it != j.end()) {
    if (!it->is_array()) return InvalidArgumentError("occupancy: endpoints is not a list");
    for (const auto& e : *it) {
      SG_ASSIGN_OR_RETURN(EndpointOccupancyRecord decoded, DecodeEndpoint(e));
      r.endpoints.push_back(std::move(decoded));
    }
  }
  SG_RETURN_IF_ERROR(ReadMap(j, "held_s", &r.held_s));
  SG_RETURN_IF_ERROR(ReadMap(j, "holds", &r.holds));
  if (auto it = j.find("concurrency"); it != j.end()) {
    SG_ASSIGN_OR_RETURN(ConcurrencyRecord c, DecodeConcurrency(*it));
    r.concurrency.push_back(std::move(c));
  }
  return r;
}

void MergeOccupancy(const OccupancyRecord& from, OccupancyRecord& into) {
  for (const auto& e : from.endpoints) {
    auto it = std::find_if(into.endpoints.begin(), into.endpoints.end(),
                           [&](const EndpointOccupancyRecord& x) { return x.endpoint == e.endpoint; });
    if (it == into.endpoints.end()) {
      into.endpoints.push_back(e);
      continue;
    }
    it->capacity = std::max(it->capacity, e.capacity);
    it->in_flight += e.in_flight;
    it->peak_in_flight = std::max(it->peak_in_flight, e.peak_in_flight);
    it->tracked_s += e.tracked_s;
    it->in_flight_s += e.in_flight_s;
    for (const auto& [cause, s] : e.idle_s) it->idle_s[cause] += s;
    it->prompt_tokens += e.prompt_tokens;
    it->cached_tokens += e.cached_tokens;
    it->affinity_kept += e.affinity_kept;
    it->affinity_moved_in += e.affinity_moved_in;
    it->affinity_started += e.affinity_started;
  }
  for (const auto& [cap, s] : from.held_s) into.held_s[cap] += s;
  for (const auto& [cap, n] : from.holds) into.holds[cap] += n;
  into.concurrency.insert(into.concurrency.end(), from.concurrency.begin(), from.concurrency.end());
}

}  // namespace seragen::journal
