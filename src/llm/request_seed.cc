#include "seragen/llm/request_seed.h"

#include "seragen/base/rng.h"

namespace seragen::llm {

std::uint64_t PortableSeed(std::uint64_t run_seed, std::string_view task_id, std::string_view purpose) {
  // The top 31 bits of the derived stream: uniform over 0 .. 2^31-1.
  return Rng::Derive(run_seed, task_id, purpose).NextU64() >> 33;
}

}  // namespace seragen::llm
