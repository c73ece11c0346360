// Checks that a reader does not wait on a FIFO someone put where a file
// should be (a damaged run directory), without hanging the test when it does.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace seragen::testing {

// Creates a FIFO at `path` (parent directories too); aborts the test on failure.
void MakeFifo(const std::string& path);

// Runs `read` (which opens `fifo`) on another thread. True when it returned
// by itself within `patience`. Otherwise it is stuck in open() or read(): the
// FIFO is then opened for writing and closed until `read` returns (it sees
// end of file), and the result is false.
bool ReturnsWithoutWriter(const std::string& fifo, const std::function<void()>& read,
                          std::chrono::milliseconds patience = std::chrono::milliseconds(2000));

}  // namespace seragen::testing
