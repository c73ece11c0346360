// BodyLog: appends every chat request body the teacher receives to a file,
// one body per line (`seragen-teacher --body-log FILE`). It records exactly
// what reached the "model", so tests can check that no secret or host file
// content was ever sent. Thread-safe; a write failure is reported once by
// Open and otherwise ignored (the log is a test aid, never a reason to fail a
// request).
#pragma once

#include <fstream>
#include <mutex>
#include <string>
#include <string_view>

#include "seragen/base/status.h"

namespace seragen::teacher {

class BodyLog {
 public:
  // Opens `path` for appending (created if missing).
  Status Open(const std::string& path);
  bool is_open() const { return file_.is_open(); }
  // Appends `body` and a newline, flushed. No-op when not open.
  void Append(std::string_view body);

 private:
  std::mutex mu_;
  std::ofstream file_;
};

}  // namespace seragen::teacher
