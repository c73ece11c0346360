#include "fuzz/fuzz_targets.h"

#include <cstdio>
#include <cstdlib>

namespace seragen::fuzz {

// SERAGEN_FUZZ_PARSERS_ONLY (the sanitizer driver) leaves out the targets
// that need the repo, config and tools modules.
std::span<const Target> AllTargets() {
  static constexpr Target kTargets[] = {
      {"sse_assembler", FuzzSseAssembler},     {"chat_response", FuzzChatResponse},
      {"tool_arguments", FuzzToolArguments},   {"patch_lines", FuzzPatchLines},
      {"journal_reader", FuzzJournalReader},   {"journal_record", FuzzJournalRecord},
      {"trajectory", FuzzTrajectory},          {"turn_log", FuzzTurnLog},
      {"prometheus_text", FuzzPrometheusText}, {"test_report", FuzzTestReport},
#ifndef SERAGEN_FUZZ_PARSERS_ONLY
      {"patch_check", FuzzPatchCheck},         {"config_loader", FuzzConfigLoader},
      {"tool_validation", FuzzToolValidation}, {"secret_scanner", FuzzSecretScanner},
#endif
  };
  return kTargets;
}

void ContractViolated(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz contract violated: %s (%s:%d)\n", what, file, line);
  std::abort();
}

}  // namespace seragen::fuzz
