// ProgramRunner: runs one trusted host program (skopeo, umoci) to completion
// and hands back its exit status, standard output and standard error apart.
// The real one forks through sandbox::RunProcess without confinement (these
// programs read the user's image and write only under the cache directory);
// tests use a fake that records the argument vectors and plays their effects.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::env {

struct ProgramOutput {
  int exit_code = -1;  // 128 + signal when killed, as a shell reports it
  bool timed_out = false;
  std::string out;  // standard output (at most ProgramRequest::max_output_bytes)
  bool out_truncated = false;
  std::string err;  // standard error, bounded
};

struct ProgramRequest {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH
  std::map<std::string, std::string> env;  // set over PATH and HOME of this process
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::size_t max_output_bytes = 4 * 1024 * 1024;
};

class ProgramRunner {
 public:
  virtual ~ProgramRunner() = default;
  // Non-OK only when the program could not be started (kNotFound when it is
  // not installed); a failing program is a ProgramOutput with its exit code.
  virtual Result<ProgramOutput> Run(const ProgramRequest& request) = 0;
};

// The real runner. Thread-safe.
class HostProgramRunner final : public ProgramRunner {
 public:
  Result<ProgramOutput> Run(const ProgramRequest& request) override;
};

}  // namespace seragen::env
