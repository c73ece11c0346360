#include "seragen/journal/ref_list.h"

#include <catch2/catch.hpp>

namespace seragen::journal {

TEST_CASE("a ref list keeps one path per role, in role order, with any bytes", "[journal][refs]") {
  RefList refs;
  CHECK(refs.empty());
  CHECK_FALSE(refs.Find("rollout1"));
  refs.Set("rollout2", "trajectories/t.r2.json");
  refs.Set("issue", "issues/t.md");
  refs.Set("rollout1", "trajectories/t.r1.json");
  refs.Set("rollout1", "trajectories/t.r1.again.json");  // a later record wins
  const std::string odd_role("a\0b", 3), odd_path("x\0\xff\n", 4);
  refs.Set(odd_role, odd_path);
  refs.Set("", "");
  CHECK(refs.size() == 5);
  CHECK(refs.Find("rollout1") == "trajectories/t.r1.again.json");
  CHECK(refs.Find(odd_role) == odd_path);
  CHECK(refs.Find("") == "");
  CHECK_FALSE(refs.Find("a"));
  std::map<std::string, std::string> want = {{"rollout2", "trajectories/t.r2.json"},
                                             {"issue", "issues/t.md"},
                                             {"rollout1", "trajectories/t.r1.again.json"},
                                             {odd_role, odd_path},
                                             {"", ""}};
  CHECK(refs.ToMap() == want);
  std::vector<std::string> roles;
  for (const auto& [role, path] : refs) roles.emplace_back(role);
  CHECK(roles == std::vector<std::string>{"", odd_role, "issue", "rollout1", "rollout2"});
  CHECK(refs.Entries().size() == roles.size());
  const RefList none;
  CHECK(none.begin() == none.end());

  refs.Erase("issue");
  refs.Erase("not there");
  CHECK_FALSE(refs.Find("issue"));
  CHECK(refs.Find("rollout2") == "trajectories/t.r2.json");
  CHECK(refs.size() == 4);
  RefList copy = refs;
  CHECK(copy == refs);
  copy.Set("rollout2", "other");
  CHECK_FALSE(copy == refs);
}

}  // namespace seragen::journal
