// ConfigErrorGate: decides when configuration errors stop a run. One
// configuration error may be a fluke of one request; the same error on
// `limit` consecutive calls means every further call would fail the same
// way, so the run must stop instead of burning its task list.
//
// "Same" compares signatures: the message with digit runs removed (servers
// echo the offending value, which differs per request). A successful call
// resets the count; other failures leave it. Not thread-safe (the owner
// serialises calls).
#pragma once

#include <string>
#include <string_view>

namespace seragen::llm {

// The message with every run of digits replaced by '#', at most 300 bytes.
std::string ConfigErrorSignature(std::string_view message);

class ConfigErrorGate {
 public:
  explicit ConfigErrorGate(int limit) : limit_(limit < 1 ? 1 : limit) {}

  // Records a configuration error; true when it completes `limit`
  // consecutive identical ones (and on every identical one after that).
  bool OnConfigError(std::string_view message);
  void OnSuccess() {
    count_ = 0;
    signature_.clear();
  }

  // True while a streak of configuration errors is open and the calls in
  // flight could complete it: new calls wait, so a wrong profile costs at
  // most max(limit, calls already in flight at the first error) requests,
  // however fast tasks fail and start again. A success or the stop ends it.
  bool HoldsNewCalls(int in_flight) const { return count_ > 0 && count_ + in_flight >= limit_; }

  int count() const { return count_; }
  int limit() const { return limit_; }

 private:
  int limit_;
  int count_ = 0;
  std::string signature_;
};

}  // namespace seragen::llm
