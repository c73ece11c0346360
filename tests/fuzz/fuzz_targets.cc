#include "fuzz/fuzz_targets.h"

#include <array>
#include <cstdio>
#include <cstdlib>

namespace seragen::fuzz {

std::span<const Target> AllTargets() {
  static constexpr std::array<Target, 9> kTargets = {{
      {"sse_assembler", FuzzSseAssembler},
      {"chat_response", FuzzChatResponse},
      {"tool_arguments", FuzzToolArguments},
      {"patch_lines", FuzzPatchLines},
      {"patch_check", FuzzPatchCheck},
      {"journal_reader", FuzzJournalReader},
      {"config_loader", FuzzConfigLoader},
      {"tool_validation", FuzzToolValidation},
      {"trajectory", FuzzTrajectory},
  }};
  return kTargets;
}

void ContractViolated(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz contract violated: %s (%s:%d)\n", what, file, line);
  std::abort();
}

}  // namespace seragen::fuzz
