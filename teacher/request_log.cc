#include "teacher/request_log.h"

#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"

namespace seragen::teacher {

Status RequestLog::OpenFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    Status s = MakeDirs(path.substr(0, slash));
    if (!s.ok()) return s.WithContext("teacher request log");
  }
  file_.open(path, std::ios::app);
  if (!file_) return IoError("teacher request log: cannot open '" + path + "' for appending");
  return Status::Ok();
}

void RequestLog::Record(const RequestRecord& r) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_.total;
  ++counts_.by_kind[r.kind];
  // A first turn counts once it is answered cleanly, so a retry after an
  // injected fault does not count twice, while a rollout redone later does.
  if (r.rollout_start && r.status == 200 && (r.fault.empty() || r.fault == "none")) ++counts_.rollout_starts[r.kind];
  if (!r.fault.empty() && r.fault != "none") ++counts_.faults[r.fault];
  if (r.fault == "rejected") ++counts_.rejected;
  if (file_.is_open()) {
    nlohmann::ordered_json j = {{"n", counts_.total},
                                {"kind", r.kind},
                                {"conversation", r.conversation},
                                {"turn", r.turn},
                                {"rollout_start", r.rollout_start},
                                {"digest", r.digest},
                                {"attempt", r.attempt},
                                {"fault", r.fault},
                                {"status", r.status},
                                {"stream", r.stream},
                                {"rejected", r.fault == "rejected"},
                                {"rejected_total", counts_.rejected}};
    if (!r.rejection.empty()) j["rejection"] = r.rejection;
    file_ << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    file_.flush();
  }
}

RequestCounts RequestLog::Counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

}  // namespace seragen::teacher
