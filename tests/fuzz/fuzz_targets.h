// Fuzz targets: one plain function per parser of outside input, with the
// libFuzzer signature. Each feeds the bytes to the parser and checks that it
// is total (no crash, no throw, no unbounded recursion) and that its output
// keeps the module's contract; a violated contract aborts (SERAGEN_FUZZ_CHECK).
// The same functions are driven by fuzz_driver (seeded mutation, in ctest) and,
// with -DSERAGEN_LIBFUZZER=ON under clang, by libFuzzer.
//
// Thread-safety: targets may keep process-wide fixtures (a small repository,
// loaded tool specs) created on first use; call them from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace seragen::fuzz {

int FuzzSseAssembler(const std::uint8_t* data, std::size_t size);
int FuzzChatResponse(const std::uint8_t* data, std::size_t size);
int FuzzToolArguments(const std::uint8_t* data, std::size_t size);
int FuzzPatchLines(const std::uint8_t* data, std::size_t size);
int FuzzPatchCheck(const std::uint8_t* data, std::size_t size);
int FuzzJournalReader(const std::uint8_t* data, std::size_t size);
int FuzzJournalRecord(const std::uint8_t* data, std::size_t size);
int FuzzTurnLog(const std::uint8_t* data, std::size_t size);
int FuzzConfigLoader(const std::uint8_t* data, std::size_t size);
int FuzzToolValidation(const std::uint8_t* data, std::size_t size);
int FuzzTrajectory(const std::uint8_t* data, std::size_t size);
int FuzzSecretScanner(const std::uint8_t* data, std::size_t size);
int FuzzPrometheusText(const std::uint8_t* data, std::size_t size);
int FuzzTestReport(const std::uint8_t* data, std::size_t size);

using TargetFn = int (*)(const std::uint8_t*, std::size_t);
struct Target {
  std::string_view name;  // also the seed corpus directory: tests/fuzz/corpus/<name>/
  TargetFn fn;
};
std::span<const Target> AllTargets();

// Prints "fuzz contract violated: <what> (file:line)" and aborts.
[[noreturn]] void ContractViolated(const char* what, const char* file, int line);

}  // namespace seragen::fuzz

#define SERAGEN_FUZZ_CHECK(cond)                                               \
  do {                                                                         \
    if (!(cond)) ::seragen::fuzz::ContractViolated(#cond, __FILE__, __LINE__); \
  } while (0)
