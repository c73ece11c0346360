#include "env/program_runner.h"

#include <catch2/catch.hpp>

namespace seragen::env {
namespace {

TEST_CASE("a host program's standard output and standard error come back apart", "[env]") {
  HostProgramRunner runner;
  ProgramRequest req;
  req.argv = {"sh", "-c", "echo manifest; echo warning >&2; echo \"$SERAGEN_X\"; exit 3"};
  req.env["SERAGEN_X"] = "set";
  auto out = runner.Run(req);
  REQUIRE(out.ok());
  CHECK(out->exit_code == 3);
  CHECK(out->out == "manifest\nset\n");
  CHECK(out->err == "warning\n");
  CHECK_FALSE(out->out_truncated);
}

TEST_CASE("output past the bound is flagged, a missing program is kNotFound", "[env]") {
  HostProgramRunner runner;
  ProgramRequest req;
  req.argv = {"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x"};
  req.max_output_bytes = 1000;
  auto out = runner.Run(req);
  REQUIRE(out.ok());
  CHECK(out->out_truncated);
  CHECK(out->out.size() <= 1003);

  req.argv = {"seragen-no-such-program-xyz"};
  auto missing = runner.Run(req);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message().find("seragen-no-such-program-xyz") != std::string::npos);
}

}  // namespace
}  // namespace seragen::env
