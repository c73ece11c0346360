#include "cli/run_lines.h"

#include <catch2/catch.hpp>

#include "seragen/runview/status_breakdown.h"

namespace seragen::cli {
namespace {

pipeline::RunSummary Summary() {
  pipeline::RunSummary s;
  s.planned = 10;
  s.already_finished = 2;
  s.accepted_before = 1;
  s.in_flight = 3;
  s.outcomes = {{pipeline::TaskOutcome::Kind::kSkipped, 1}, {pipeline::TaskOutcome::Kind::kVerified, 3}};
  s.accepted = 2;
  s.prompt_tokens = 1000;
  s.completion_tokens = 50;
  return s;
}

}  // namespace

TEST_CASE("run lines: progress counts done, running and accepted, with rate and ETA once time passed",
          "[cli][progress]") {
  CHECK(ProgressLine(Summary(), 0) ==
        "6/10 tasks done (2 before), 3 running, 3 accepted, 1 skipped, 3 verified, 1000 tokens in / 50 out");
  CHECK(ProgressLine(Summary(), 120) ==
        "6/10 tasks done (2 before), 3 running, 3 accepted, 1 skipped, 3 verified, 1000 tokens in / 50 out, "
        "2.0 tasks/min, " +
            runview::FormatEta(runview::EtaMinutes(4, 2.0)));
}

TEST_CASE("run lines: the final line holds the shard's totals, then this invocation's part", "[cli][progress]") {
  CHECK(FinalLine(Summary(), 0) ==
        "6/10 tasks done, 3 accepted; this invocation: 4 finished (1 skipped, 3 verified), 2 accepted, "
        "1000 tokens in / 50 out");
  CHECK(FinalLine(Summary(), 60).ends_with(", 4.0 tasks/min"));
  CHECK(FinalLine(pipeline::RunSummary{}, 0) ==
        "0/0 tasks done, 0 accepted; this invocation: 0 finished, 0 accepted, 0 tokens in / 0 out");
}

}  // namespace seragen::cli
