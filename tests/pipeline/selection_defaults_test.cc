// The run's selection defaults (config) are the call graph's own (callgraph):
// a configured run must exclude the same tests and auxiliary files as
// `seragen graph` / `seragen plan` without a configuration.
#include <catch2/catch.hpp>

#include "seragen/callgraph/selection.h"
#include "seragen/config/config.h"

namespace seragen {

TEST_CASE("config selection defaults equal the call graph's default patterns", "[pipeline][selection]") {
  const config::SelectionConfig defaults;
  CHECK(defaults.test_patterns == callgraph::DefaultTestPathPatterns());
  CHECK(defaults.auxiliary_patterns == callgraph::DefaultAuxiliaryPatterns());
  CHECK(defaults.exclude_tests == callgraph::SelectionOptions{}.exclude_tests);
  CHECK(defaults.exclude_auxiliary == callgraph::SelectionOptions{}.exclude_auxiliary);
}

}  // namespace seragen
