#include "teacher/body_log.h"

namespace seragen::teacher {

Status BodyLog::Open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  file_.open(path, std::ios::binary | std::ios::app);
  if (!file_) return IoError("teacher body log " + path + ": cannot be opened for appending");
  return Status::Ok();
}

void BodyLog::Append(std::string_view body) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_.is_open()) return;
  file_.write(body.data(), static_cast<std::streamsize>(body.size()));
  file_.put('\n');
  file_.flush();
}

}  // namespace seragen::teacher
