#include "seragen/runview/run_result.h"

#include <catch2/catch.hpp>

namespace seragen::runview {

TEST_CASE("run result from the task tally", "[pipeline][exit]") {
  CHECK(ClassifyTally({5, 5, 0}) == RunResult::kComplete);
  CHECK(ClassifyTally({0, 0, 0}) == RunResult::kComplete);    // an empty shard has nothing left to do
  CHECK(ClassifyTally({5, 3, 2}) == RunResult::kIncomplete);  // infrastructure failures remain
  CHECK(ClassifyTally({5, 2, 0}) == RunResult::kIncomplete);  // a budget stop left tasks unstarted
  CHECK(ClassifyTally({5, 0, 5}) == RunResult::kNothingSucceeded);
  CHECK(ClassifyTally({5, 0, 0}) == RunResult::kNothingSucceeded);
  CHECK(RunResultName(RunResult::kIncomplete) == "incomplete");
  CHECK(RunResultName(RunResult::kConfigStop) == "config_error");
}

}  // namespace seragen::runview
