// `seragen export` settings: the run's output.* with command-line overrides.
#include <catch2/catch.hpp>

#include "seragen/base/file_util.h"
#include "seragen/publish/export_run.h"
#include "seragen/runview/status_report.h"
#include "testing/temp_dir.h"

namespace seragen::publish {
namespace {

constexpr const char* kRunConfig = R"(run:
  name: nightly-7
repos:
  - name: r
    source: /nonexistent/r
llm:
  model: m
  endpoints:
    - base_url: http://127.0.0.1:1/v1
output:
  formats: [openai, xml]
  think: wrap
  rollouts: t2
  only_submitted: false
  include_tools: false
  tool_call_ids: short9
  max_patch_lines: 40
judge:
  enabled: false
)";

}  // namespace

TEST_CASE("export settings: output.* of the run, run name in metadata", "[export]") {
  testing::TempDir dir;
  REQUIRE(WriteFileAtomic(dir.Sub("config.yaml"), kRunConfig).ok());
  ExportOverrides o;
  o.run_dir = dir.path();
  auto reqs = ExportRequestsFor(o);
  INFO(reqs.status().ToString());
  REQUIRE(reqs.ok());
  REQUIRE(reqs->size() == 2);
  const ExportRequest& r = (*reqs)[0];
  CHECK(r.options.format == exporter::Format::kOpenAI);
  CHECK((*reqs)[1].options.format == exporter::Format::kXml);
  CHECK(r.options.think == exporter::ThinkMode::kWrap);
  CHECK_FALSE(r.options.include_tools);
  CHECK_FALSE(r.rules.t1);
  CHECK(r.rules.t2);
  CHECK_FALSE(r.rules.only_submitted);
  CHECK(r.run_name == "nightly-7");
  CHECK(r.options.short_tool_call_ids);
  CHECK(r.rules.max_patch_lines == 40);
  CHECK(r.rules.max_record_tokens == 0);
  CHECK(r.rules.line_rule == verify::VerifyRule::kSera);  // verify.rule's default
  CHECK_FALSE(r.rules.judge_enabled);                     // T1 then needs no judge yes
}

TEST_CASE("export settings: max_patch_lines counts lines under the run's verify.rule", "[export]") {
  testing::TempDir dir;
  REQUIRE(WriteFileAtomic(dir.Sub("config.yaml"), std::string(kRunConfig) + "verify:\n  rule: structural\n").ok());
  ExportOverrides o;
  o.run_dir = dir.path();
  auto reqs = ExportRequestsFor(o);
  INFO(reqs.status().ToString());
  REQUIRE(reqs.ok());
  CHECK((*reqs)[0].rules.line_rule == verify::VerifyRule::kStructural);
}

TEST_CASE("export settings: flags override the run's values", "[export]") {
  testing::TempDir dir;
  REQUIRE(WriteFileAtomic(dir.Sub("config.yaml"), kRunConfig).ok());
  ExportOverrides o;
  o.run_dir = dir.path();
  o.formats = {"hf"};
  o.think = "keep";
  o.rollouts = "both";
  o.threshold = 0.8;
  o.tool_call_ids = "keep";
  auto reqs = ExportRequestsFor(o);
  REQUIRE(reqs.ok());
  REQUIRE(reqs->size() == 1);
  CHECK((*reqs)[0].options.format == exporter::Format::kHf);
  CHECK((*reqs)[0].options.think == exporter::ThinkMode::kKeep);
  CHECK((*reqs)[0].rules.t1);
  CHECK((*reqs)[0].rules.threshold == 0.8);
  CHECK_FALSE((*reqs)[0].options.short_tool_call_ids);
}

TEST_CASE("export settings: defaults without a saved config, clear error on a broken one", "[export]") {
  testing::TempDir dir;
  ExportOverrides o;
  o.run_dir = dir.path();
  auto reqs = ExportRequestsFor(o);
  REQUIRE(reqs.ok());
  REQUIRE(reqs->size() == 1);
  CHECK((*reqs)[0].options.format == exporter::Format::kHf);
  CHECK((*reqs)[0].rules.only_submitted);
  CHECK((*reqs)[0].rules.judge_enabled);
  CHECK((*reqs)[0].run_name.empty());
  REQUIRE(WriteFileAtomic(dir.Sub("config.yaml"), "output:\n  formats: [sharegpt]\n").ok());
  auto bad = ExportRequestsFor(o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find(dir.Sub("config.yaml")) != std::string::npos);
}

}  // namespace seragen::publish
