#include "seragen/tools/submit_tool.h"

#include <catch2/catch.hpp>

#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

using test::Expected;
using test::FakePatchSource;

const char* kPatch = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n";

TEST_CASE("the first submit shows the diff, the second submits it", "[tools][submit]") {
  FakePatchSource patches;
  patches.patch = kPatch;
  SubmitTool submit(&patches, &test::Messages(), true, "submit");
  auto first = submit.Submit();
  REQUIRE(first.ok());
  CHECK_FALSE(first->submitted);
  CHECK(first->observation == Expected("submit_review", {{"diff", kPatch}, {"submit_tool", "submit"}}));
  auto second = submit.Submit();
  REQUIRE(second.ok());
  CHECK(second->submitted);
  CHECK(second->patch == kPatch);
  CHECK(second->observation == kPatch);
}

TEST_CASE("a diff changed after review is shown again", "[tools][submit]") {
  FakePatchSource patches;
  patches.patch = kPatch;
  SubmitTool submit(&patches, &test::Messages(), true, "finish");
  CHECK_FALSE(submit.Submit()->submitted);
  patches.patch = std::string(kPatch) + "+c\n";
  auto again = submit.Submit();
  CHECK_FALSE(again->submitted);
  CHECK(again->observation.find("+c") != std::string::npos);
  CHECK(again->observation.find("finish") != std::string::npos);
  CHECK(submit.Submit()->submitted);
}

TEST_CASE("an empty diff gets its own review message", "[tools][submit]") {
  FakePatchSource patches;
  SubmitTool submit(&patches, &test::Messages(), true, "submit");
  CHECK(submit.Submit()->observation == Expected("submit_review_empty", {{"submit_tool", "submit"}}));
  auto done = submit.Submit();
  CHECK(done->submitted);
  CHECK(done->patch.empty());
}

TEST_CASE("a huge diff is shown cut at a line, with a note", "[tools][submit]") {
  FakePatchSource patches;
  patches.patch = std::string(kPatch) + std::string(200, '+') + "\n";
  SubmitTool submit(&patches, &test::Messages(), true, "submit", 60);
  auto r = submit.Submit();
  REQUIRE(r.ok());
  const std::string shown = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n";  // 59 chars, whole lines
  const std::string note =
      Expected("submit_review_clipped", {{"shown", "59"}, {"total", std::to_string(patches.patch.size())}});
  CHECK(r->observation == Expected("submit_review", {{"diff", shown + note + "\n"}, {"submit_tool", "submit"}}));
  auto done = submit.Submit();
  CHECK(done->submitted);
  CHECK(done->patch == patches.patch);  // the full patch is submitted
}

// With review off, hands `patch` in at once (the diff shown within max_chars).
SubmitOutcome HandIn(const std::string& patch, std::size_t max_chars = 40000) {
  FakePatchSource patches;
  patches.patch = patch;
  Result<SubmitOutcome> r = SubmitTool(&patches, &test::Messages(), false, "submit", max_chars).Submit();
  REQUIRE(r.ok());
  CHECK(r->submitted);
  CHECK(r->patch == patch);
  return *r;
}

// SWE-agent makes the handed-in diff the submit step's observation (an empty
// one shows its no-output sentence); SERA keeps it as the row's last,
// untrained turn.
TEST_CASE("submit: the handed-in diff is the final observation, as SWE-agent shows it", "[tools][submit]") {
  CHECK(HandIn(kPatch).observation == kPatch);
  CHECK(HandIn("").observation == Expected("bash_no_output", {}));
  // Clipped as the review is, in characters, never inside one.
  const std::string line = "+" + std::string(20, 'x') + "\n";
  std::string accented;
  for (int i = 0; i < 30; ++i) accented += "\xc3\xa9";
  const std::string note = Expected("submit_review_clipped", {{"shown", "22"}, {"total", "76"}});
  CHECK(HandIn(line + "+" + accented + "\n" + line, 40).observation == line + note + "\n");
}

TEST_CASE("with review off the first call submits", "[tools][submit]") {
  FakePatchSource patches;
  patches.patch = kPatch;
  SubmitTool submit(&patches, &test::Messages(), false, "submit");
  auto r = submit.Submit();
  CHECK(r->submitted);
  CHECK(r->patch == kPatch);
}

TEST_CASE("a patch that cannot be computed is an infrastructure error", "[tools][submit]") {
  FakePatchSource patches;
  patches.error = IoError("git diff failed");
  SubmitTool submit(&patches, &test::Messages(), true, "submit");
  CHECK(submit.Submit().status().code() == StatusCode::kIoError);
}

TEST_CASE("a patch over its size limit is an outcome that ends the rollout, not an error", "[tools][submit]") {
  FakePatchSource patches;
  patches.error = ResourceExhaustedError("patch exceeds 1048576 bytes");
  SubmitTool submit(&patches, &test::Messages(), true, "submit");
  auto r = submit.Submit();
  REQUIRE(r.ok());
  CHECK(r->patch_too_large);
  CHECK_FALSE(r->submitted);
  CHECK(r->patch.empty());
  CHECK(r->observation == "patch exceeds 1048576 bytes");
}

}  // namespace
}  // namespace seragen::tools
