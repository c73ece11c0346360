#include "cli/user_text.h"

#include <catch2/catch.hpp>

#include "seragen/base/status.h"

namespace seragen::cli {

TEST_CASE("status code names are taken out of user-facing text", "[cli]") {
  CHECK(WithoutStatusCodeNames(Status(StatusCode::kFailedPrecondition, "x").ToString()) == "x");
  CHECK(WithoutStatusCodeNames("cannot prepare a working copy: UNAVAILABLE: endpoint down; IO_ERROR: disk") ==
        "cannot prepare a working copy: endpoint down; disk");
  // Only whole code names followed by ": ".
  CHECK(WithoutStatusCodeNames("MY_NOT_FOUND: a, NOT_FOUNDx: b, NOT_FOUND:c, OK: d") ==
        "MY_NOT_FOUND: a, NOT_FOUNDx: b, NOT_FOUND:c, OK: d");
  CHECK(WithoutStatusCodeNames("(INTERNAL: bug)") == "(bug)");
  CHECK(WithoutStatusCodeNames("").empty());
}

}  // namespace seragen::cli
