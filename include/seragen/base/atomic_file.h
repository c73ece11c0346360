// Output that replaces its target whole, through a temporary file nobody
// can redirect.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/base/unique_fd.h"

namespace seragen {

// A file written under a temporary name beside its target and renamed over
// it by Commit, for output written piece by piece. The temporary name is
// "<path>.tmp.<pid>.<random digits>", created with O_CREAT|O_EXCL|O_NOFOLLOW
// in the target's own directory: a link or file planted at any name is never
// opened (another name is tried), so nothing writes through it. Dropped
// without Commit, the temporary file is removed.
class AtomicFile {
 public:
  // `durable`: Commit fsyncs the file and the directory.
  static Result<AtomicFile> Open(const std::string& path, bool durable = true);
  AtomicFile(AtomicFile&& other) noexcept = default;
  AtomicFile& operator=(AtomicFile&& other) noexcept = default;
  ~AtomicFile();

  Status Append(std::string_view bytes);
  Status Commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  AtomicFile() = default;
  std::string path_, tmp_;
  UniqueFd fd_;
  bool durable_ = true;
  Status status_;
};

}  // namespace seragen
