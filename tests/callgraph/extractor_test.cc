#include <catch2/catch.hpp>

#include "callgraph/extractor.h"
#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {
namespace {

TEST_CASE("every embedded query compiles", "[extractor]") {
  Result<std::shared_ptr<const QuerySet>> queries = QuerySet::Compile();
  INFO(queries.status().ToString());
  REQUIRE(queries.ok());
}

}  // namespace
}  // namespace seragen::callgraph
