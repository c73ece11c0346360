#include "seragen/runview/run_budget.h"

#include <catch2/catch.hpp>
#include <limits>

#include "seragen/base/file_util.h"
#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::runview {

// Issue 36: another shard's journal is outside input to this shard; its
// counts could switch the run-wide budget off (negative) or wrap a total.
TEST_CASE("budget totals: negative and overflowing counts cannot lower or wrap a total", "[budget]") {
  BudgetUse used{3, 1000, 1.5};
  used += BudgetUse{0, -1'000'000, -100.0};
  CHECK(used.tokens == 1000);
  CHECK(used.cost_usd == 1.5);
  used += BudgetUse{0, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<double>::infinity()};
  used += BudgetUse{1, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<double>::quiet_NaN()};
  CHECK(used.tokens == kMaxBudgetCount);
  CHECK(used.tasks == 4);
  CHECK(used.cost_usd >= 1.5);
  CHECK_FALSE(BudgetExhausted(used, BudgetLimits{0, 5000, 0}).empty());
}

TEST_CASE("budget totals: another shard's journal that does not read is an error naming it", "[budget]") {
  testing::TempDir dir;
  REQUIRE(MakeDirs(journal::ShardDir(dir.path(), 0)).ok());
  REQUIRE(MakeDirs(journal::JournalPath(journal::ShardDir(dir.path(), 1))).ok());  // a directory in its place
  Result<BudgetUse> use = OtherShardsUse(dir.path(), 0, {});
  REQUIRE_FALSE(use.ok());
  CHECK(use.status().message().find("shard-1") != std::string::npos);
}

}  // namespace seragen::runview
