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

TEST_CASE("command: strict-mode flags are checked", "[teacher]") {
  std::string out;
  CHECK(RunTeacher("--validate tgi", &out) == 2);
  CHECK(out.find("tgi") != std::string::npos);
  CHECK(RunTeacher("--no-jinja", &out) == 2);
  CHECK(out.find("--no-jinja needs --validate llamacpp") != std::string::npos);
}

TEST_CASE("command: bad arguments exit 2 naming the flag", "[teacher]") {
  std::string out;
  CHECK(RunTeacher("--faults bogus=1", &out) == 2);
  CHECK(out.find("--faults") != std::string::npos);
  CHECK(RunTeacher("--latency sometimes", &out) == 2);
  CHECK(RunTeacher("--reasoning loud", &out) == 2);
  CHECK(RunTeacher("--no-such-flag", &out) == 2);
  CHECK(RunTeacher("--config /nonexistent/teacher.yaml", &out) == 2);
  CHECK(out.find("/nonexistent/teacher.yaml") != std::string::npos);
}

TEST_CASE("command: --help says it is a stand-in for a model", "[teacher]") {
  std::string out;
  CHECK(RunTeacher("--help", &out) == 0);
  CHECK(out.find("stand-in for a model") != std::string::npos);
}

}  // namespace
}  // namespace seragen::teacher
