#include "cli/occupancy_file.h"

#include <catch2/catch.hpp>

namespace seragen::cli {

TEST_CASE("saved occupancy carries the pool's figures and no credentials", "[cli][occupancy]") {
  llm::EndpointState a;
  a.base_url = "https://user:s3cret@gpu0.example:8000/v1?key=abc";
  a.max_concurrency = 32;
  a.outstanding = 3;
  a.affinity_kept = 9;
  a.occupancy.tracked_s = 10;
  a.occupancy.in_flight_s = 50;
  a.occupancy.idle_cap_s = 2;
  llm::CallHolds holds;
  holds.global_cap = std::chrono::milliseconds(2500);
  holds.global_cap_holds = 2;
  journal::OccupancyRecord r = OccupancyOf({a}, holds);
  REQUIRE(r.endpoints.size() == 1);
  CHECK(r.endpoints[0].endpoint == "https://gpu0.example:8000/v1");
  CHECK(r.endpoints[0].capacity == 32);
  CHECK(r.endpoints[0].MeanInFlight() == Approx(5));
  CHECK(r.endpoints[0].idle_s.at(std::string(journal::kIdleCap)) == Approx(2));
  CHECK(r.held_s.at("llm.max_concurrency") == Approx(2.5));
  CHECK(r.holds.at("llm.max_concurrency") == 2);
  CHECK(journal::EncodeOccupancy(r).find("s3cret") == std::string::npos);
}

}  // namespace seragen::cli
