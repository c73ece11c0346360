#include "seragen/verify/verify_command.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"

namespace seragen::verify {

namespace {
constexpr const char* kP1 =
    "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n-y = 1\n+y = 2\n";
constexpr const char* kP2 =
    "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n+z = 0\n";

// P1 and P2 written to p1.diff and p2.diff in a fresh directory.
struct PatchFiles {
  PatchFiles(const std::string& p1, const std::string& p2) {
    dir.Write("p1.diff", p1);
    dir.Write("p2.diff", p2);
  }
  VerifyCommandOptions Options(double threshold, bool json = false) const {
    return {dir.Sub("p1.diff"), dir.Sub("p2.diff"), threshold, json};
  }
  testing::TempDir dir;
};
}  // namespace

TEST_CASE("verify command prints a human report with the verdict", "[verify][command]") {
  PatchFiles files(kP1, kP2);
  VerifyCommandOptions o = files.Options(0.5);
  auto out = RunVerifyCommand(o);
  REQUIRE(out.ok());
  CHECK(out->scores.matched == 2);
  CHECK(out->accepted);
  CHECK(out->text.find("P1: " + files.dir.Sub("p1.diff")) != std::string::npos);
  CHECK(out->text.find("recall:           0.5000") != std::string::npos);
  CHECK(out->text.find("verdict:          accepted") != std::string::npos);

  o.threshold = 0.75;
  out = RunVerifyCommand(o);
  REQUIRE(out.ok());
  CHECK_FALSE(out->accepted);
  CHECK(out->text.find("rejected (recall 0.5000 < 0.75)") != std::string::npos);
}

TEST_CASE("verify command JSON output is one parseable object", "[verify][command]") {
  PatchFiles files(kP1, kP2);
  auto out = RunVerifyCommand(files.Options(0.5, /*json=*/true));
  REQUIRE(out.ok());
  REQUIRE(out->text.back() == '\n');
  auto j = nlohmann::json::parse(out->text);
  CHECK(j["p1_lines"] == 4);
  CHECK(j["p2_lines"] == 3);
  CHECK(j["matched"] == 2);
  CHECK(j["recall"].get<double>() == Approx(0.5));
  CHECK(j["precision"].get<double>() == Approx(2.0 / 3.0));
  CHECK(j["scorable"] == true);
  CHECK(j["threshold"].get<double>() == Approx(0.5));
  CHECK(j["accepted"] == true);
  CHECK(j["p2"] == files.dir.Sub("p2.diff"));
  CHECK(j["rule"] == "sera");  // the default rule
}

TEST_CASE("verify command scores under the chosen rule", "[verify][command]") {
  // "-- old" removed and "-- new" added: shown as "--- old" / "+-- new".
  const char* p = "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1 +1 @@\n--- old\n+-- new\n";
  PatchFiles files(p, p);
  VerifyCommandOptions o = files.Options(0.5);
  auto sera = RunVerifyCommand(o);
  REQUIRE(sera.ok());
  CHECK(sera->scores.p1_lines == 1);  // "--- old" begins with ---: skipped
  CHECK(sera->text.find("rule:             sera\n") != std::string::npos);
  o.rule = VerifyRule::kStructural;
  auto structural = RunVerifyCommand(o);
  REQUIRE(structural.ok());
  CHECK(structural->scores.p1_lines == 2);
  CHECK(structural->text.find("rule:             structural\n") != std::string::npos);
}

TEST_CASE("verify command: an empty P1 or P2 is not scorable under the sera rule", "[verify][command]") {
  struct Case {
    const char* p1;
    const char* p2;
    const char* says;
  };
  for (const Case& c : {Case{kP1, "", "not scorable (P2 is empty"}, Case{"", kP2, "not scorable"}}) {
    PatchFiles files(c.p1, c.p2);
    auto out = RunVerifyCommand(files.Options(0.0));
    REQUIRE(out.ok());
    CHECK_FALSE(out->accepted);
    CHECK(out->text.find(c.says) != std::string::npos);
  }
}

TEST_CASE("verify command errors name the bad input", "[verify][command]") {
  testing::TempDir dir;
  dir.Write("p1.diff", kP1);
  auto missing = RunVerifyCommand({dir.Sub("p1.diff"), dir.Sub("nope.diff"), 0.5, false});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("P2") != std::string::npos);
  CHECK(missing.status().message().find("nope.diff") != std::string::npos);
  auto bad = RunVerifyCommand({dir.Sub("p1.diff"), dir.Sub("p1.diff"), 1.5, false});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("verify command refuses a file that is not a diff, but reads an empty file as an empty patch",
          "[verify][command]") {
  testing::TempDir dir;
  dir.Write("p1.diff", kP1);
  dir.Write("notes.txt", "x = 2\nsome notes, not a patch\n");
  dir.Write("empty.diff", "\n");
  auto not_diff = RunVerifyCommand({dir.Sub("p1.diff"), dir.Sub("notes.txt"), 0.5, false});
  REQUIRE_FALSE(not_diff.ok());
  CHECK(not_diff.status().code() == StatusCode::kInvalidArgument);
  CHECK(not_diff.status().message().find("P2 (" + dir.Sub("notes.txt") + ") is not a unified diff") !=
        std::string::npos);
  CHECK(RunVerifyCommand({dir.Sub("p1.diff"), dir.Sub("empty.diff"), 0.5, false}).ok());
}

}  // namespace seragen::verify
