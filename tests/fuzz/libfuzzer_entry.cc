// libFuzzer entry point for one target, chosen at compile time with
// -DSERAGEN_FUZZ_TARGET=FuzzX (see tests/fuzz/CMakeLists.txt, SERAGEN_LIBFUZZER).
#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return seragen::fuzz::SERAGEN_FUZZ_TARGET(data, size);
}
