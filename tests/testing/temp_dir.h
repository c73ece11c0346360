// TempDir: a fresh directory under $TMPDIR (or /tmp), removed on destruction.
#pragma once

#include <string>

namespace seragen::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + relative
  std::string Sub(const std::string& relative) const { return path_ + "/" + relative; }
  // Writes a file (creating parent directories); aborts the test on failure.
  void Write(const std::string& relative, const std::string& content) const;
  std::string Read(const std::string& relative) const;

 private:
  std::string path_;
};

// Runs a shell command, returns its exit code; stdout+stderr into *output if given.
int RunShell(const std::string& command, std::string* output = nullptr);

}  // namespace seragen::testing
