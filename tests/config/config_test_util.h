// Shared by config and cli tests: the bad-config corpus under tests/config/bad,
// and an environment for ${VAR} interpolation.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "seragen/config/loader.h"
#include "testing/source_paths.h"

namespace seragen::testing {

struct BadConfigCase {
  std::string path;
  std::string expect;                  // from "# expect: ..."
  std::vector<std::string> overrides;  // from "# set: ..." lines
};

inline std::vector<BadConfigCase> LoadBadConfigCorpus() {
  std::vector<BadConfigCase> cases;
  std::string dir = seragen::testing::SourcePath("tests/config/bad");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    BadConfigCase c;
    c.path = entry.path().string();
    std::ifstream in(c.path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("# expect: ", 0) == 0) c.expect = line.substr(10);
      if (line.rfind("# set: ", 0) == 0) c.overrides.push_back(line.substr(7));
    }
    cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return cases;
}

// An environment that holds exactly `vars`.
inline config::EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace seragen::testing
