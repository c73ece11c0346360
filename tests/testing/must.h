// Must(result): the value of a Result a test cannot go on without; otherwise
// the test fails there (REQUIRE), showing the status.
#pragma once

#include <catch2/catch.hpp>

#include <utility>

#include "seragen/base/result.h"

namespace seragen::testing {

template <typename T>
T Must(Result<T> result) {
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

}  // namespace seragen::testing
