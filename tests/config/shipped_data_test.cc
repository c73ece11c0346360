#include "seragen/config/shipped_data.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "seragen/config/data_dir.h"
#include "testing/source_paths.h"

namespace seragen::config {

TEST_CASE("every shipped data path names what the source tree ships, and a setting overrides it",
          "[config][data_dir]") {
  for (Shipped what : kAllShipped) {
    const std::string path = seragen::testing::SourcePath(std::string(ShippedRelativePath(what)));
    INFO(path);
    CHECK(std::filesystem::exists(path));
    CHECK(ShippedPath(what) == DataDir() + "/" + std::string(ShippedRelativePath(what)));
  }
  CHECK(ConfiguredOrShipped("", Shipped::kTools) == ShippedPath(Shipped::kTools));
  CHECK(ConfiguredOrShipped("/etc/my-tools.yaml", Shipped::kTools) == "/etc/my-tools.yaml");
}

}  // namespace seragen::config
