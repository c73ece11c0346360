#include "teacher/options.h"

#include <catch2/catch.hpp>

#include "testing/temp_dir.h"

using namespace seragen::teacher;

TEST_CASE("ParseLatencySpec accepts each model and rejects junk with a clear message") {
  auto zero = ParseLatencySpec("zero");
  REQUIRE(zero.ok());
  CHECK(zero->IsZero());
  auto fixed = ParseLatencySpec("fixed:250");
  REQUIRE(fixed.ok());
  CHECK(fixed->kind == LatencyModel::Kind::kFixed);
  CHECK(fixed->fixed_ms == 250);
  auto uni = ParseLatencySpec("uniform:100-400,first=0.3");
  REQUIRE(uni.ok());
  CHECK(uni->min_ms == 100);
  CHECK(uni->max_ms == 400);
  CHECK(uni->first_chunk_fraction == Approx(0.3));
  auto exp = ParseLatencySpec("exp:800,tail=0.02x20");
  REQUIRE(exp.ok());
  CHECK(exp->mean_ms == 800);
  CHECK(exp->tail_rate == Approx(0.02));
  CHECK(exp->tail_multiplier == 20);

  auto bad = ParseLatencySpec("gauss:5");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("gauss:5") != std::string::npos);
  CHECK_FALSE(ParseLatencySpec("uniform:400-100").ok());
  CHECK_FALSE(ParseLatencySpec("fixed:abc").ok());
  CHECK_FALSE(ParseLatencySpec("exp:100,tail=2x3").ok());
  CHECK_FALSE(ParseLatencySpec("fixed:-5").ok());
}

TEST_CASE("ParseFaultSpec reads rates and extras, and refuses sums above one") {
  auto none = ParseFaultSpec("none");
  REQUIRE(none.ok());
  CHECK(none->Total() == 0);
  auto rates = ParseFaultSpec("503=0.1, 429=0.2,reset=0.05,retry_after=3,hang_seconds=2.5");
  REQUIRE(rates.ok());
  CHECK(rates->http503 == Approx(0.1));
  CHECK(rates->http429 == Approx(0.2));
  CHECK(rates->reset == Approx(0.05));
  CHECK(rates->retry_after_seconds == 3);
  CHECK(rates->hang_seconds == Approx(2.5));
  auto unknown = ParseFaultSpec("404=0.1");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message().find("unknown fault '404'") != std::string::npos);
  CHECK_FALSE(ParseFaultSpec("500=0.6,502=0.6").ok());
  CHECK_FALSE(ParseFaultSpec("500").ok());
  CHECK_FALSE(ParseFaultSpec("500=1.5").ok());
}

TEST_CASE("ValidateOptions names the offending field") {
  TeacherOptions o;
  o.prompts_dir = "/x";
  CHECK(ValidateOptions(o).ok());
  o.port = 70000;
  CHECK(ValidateOptions(o).message().find("teacher.port") != std::string::npos);
  o.port = 0;
  o.knobs.judge_yes_rate = 2;
  CHECK(ValidateOptions(o).message().find("judge_yes_rate") != std::string::npos);
  o.knobs.judge_yes_rate = 1;
  o.prompts_dir.clear();
  CHECK(ValidateOptions(o).message().find("prompts_dir") != std::string::npos);
}

TEST_CASE("Reasoning modes and raw markup styles parse by name") {
  CHECK(*ParseReasoningMode("think") == ReasoningMode::kThinkTag);
  CHECK(*ParseReasoningMode("reasoning_content") == ReasoningMode::kReasoningContent);
  CHECK(ParseReasoningMode("loud").status().message().find("'loud' is not one of") != std::string::npos);
  CHECK(*ParseRawMarkupStyle("glm") == RawMarkupStyle::kGlm);
  CHECK_FALSE(ParseRawMarkupStyle("json").ok());
}
