// The seragen-teacher program (the scripted stand-in for a model): exit codes
// and argument errors of its command line.
#include <catch2/catch.hpp>

#include <string>

#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::teacher {
namespace {

// Runs `build/seragen-teacher ARGS`; returns its exit code, stdout+stderr in *out.
int RunTeacher(const std::string& args, std::string* out) {
  return testing::RunShell(testing::BinaryDir() + "/seragen-teacher " + args, out);
}

struct CommandCase {
  const char* args;
  int exit_code;
  const char* says;  // a text the output must hold ("" for none)
};

TEST_CASE("command: bad flags and files exit 2 naming what is wrong, --help says it is a stand-in", "[teacher]") {
  const CommandCase cases[] = {
      {"--validate tgi", 2, "tgi"},
      {"--no-jinja", 2, "--no-jinja needs --validate llamacpp"},
      {"--faults bogus=1", 2, "--faults"},
      {"--latency sometimes", 2, "--latency"},
      {"--reasoning loud", 2, "--reasoning"},
      {"--no-such-flag", 2, "--no-such-flag"},
      {"--config /nonexistent/teacher.yaml", 2, "/nonexistent/teacher.yaml"},
      {"--help", 0, "stand-in for a model"},
  };
  for (const CommandCase& c : cases) {
    INFO("seragen-teacher " << c.args);
    std::string out;
    CHECK(RunTeacher(c.args, &out) == c.exit_code);
    CHECK(out.find(c.says) != std::string::npos);
  }
}

}  // namespace
}  // namespace seragen::teacher
