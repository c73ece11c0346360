#include "seragen/env/image_root.h"

#include <catch2/catch.hpp>

namespace seragen::env {
namespace {

TEST_CASE("a missing image is an error naming its path", "[env]") {
  auto root = PrepareImageRoot("/nonexistent/image.tar", "/tmp/seragen-env-test-cache");
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().message().find("/nonexistent/image.tar") != std::string::npos);
}

}  // namespace
}  // namespace seragen::env
