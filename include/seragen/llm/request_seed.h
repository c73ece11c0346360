// Per-request sampling seeds that every server accepts: 0 .. 2^31-1.
//
// vLLM rejects seeds outside the signed 64-bit range, llama.cpp keeps only 32
// bits and OpenAI marks the field deprecated; a non-negative 31-bit value is
// the one range all of them take unchanged. Pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace seragen::llm {

inline constexpr std::uint64_t kMaxPortableSeed = 0x7fffffffULL;  // 2^31 - 1

// Deterministic in (run_seed, task_id, purpose); always <= kMaxPortableSeed.
std::uint64_t PortableSeed(std::uint64_t run_seed, std::string_view task_id, std::string_view purpose);

}  // namespace seragen::llm
