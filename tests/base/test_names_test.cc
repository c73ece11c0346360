// ctest runs each Catch2 test by passing its name on the command line: a name
// with ';' is split in two (neither part matches, and the "test" passes
// without running), and a name starting with '-' is read as an option. This
// test fails on any such name anywhere in tests/.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "testing/source_paths.h"

TEST_CASE("no test name can be mangled by ctest", "[meta]") {
  std::regex name_re("TEST_CASE\\(\"([^\"]*)\"");
  int checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(seragen::testing::SourcePath("tests"))) {
    if (e.path().extension() != ".cc") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), name_re), end; it != end; ++it) {
      std::string name = (*it)[1];
      ++checked;
      INFO(e.path().string() << ": \"" << name << "\"");
      CHECK(name.find(';') == std::string::npos);
      CHECK_FALSE((!name.empty() && name[0] == '-'));
    }
  }
  CHECK(checked > 300);
}
