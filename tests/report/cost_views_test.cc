// The cost ledger as the user sees it: `seragen status` (text and --json),
// the report's index and the dataset card show the same figures of one
// ledger (runview/cost_ledger.h), and none for a run without prices.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/run_paths.h"
#include "seragen/publish/export_dataset.h"
#include "seragen/report/report_writer.h"
#include "seragen/runview/cost_ledger.h"
#include "seragen/runview/status_report.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

// What each view shows of one run.
struct Views {
  runview::StatusReport status;
  std::string text, index, card;
  nlohmann::json json;
};

// A synthetic run of 20 tasks whose saved config has `pricing_yaml` under
// llm (may be empty), read by status, reported and exported as a dataset.
Views ViewsOf(const seragen::testing::TempDir& dir, const std::string& pricing_yaml,
              std::vector<std::string> endpoints = {}) {
  testing::SyntheticRunOptions o;
  o.tasks = 20;
  o.endpoints = std::move(endpoints);
  const std::string run = dir.Sub("run");
  REQUIRE(testing::MakeSyntheticRun(run, o).ok());
  REQUIRE(WriteFileAtomic(journal::ConfigYamlPath(run),
                          "repos:\n  - source: /nonexistent/repo\nllm:\n  endpoints:\n"
                          "    - base_url: http://127.0.0.1:9/v1\n" +
                              pricing_yaml)
              .ok());
  Views v;
  auto status = runview::ReadStatus(run);
  REQUIRE(status.ok());
  v.status = *status;
  v.text = runview::FormatStatus(v.status);
  v.json = nlohmann::json::parse(runview::StatusJson(v.status));
  ReportOptions ro;
  ro.run_dir = run;
  auto written = WriteReport(ro);
  REQUIRE(written.ok());
  v.index = *ReadFile(written->index_path);
  publish::ExportRequest req;
  req.run_dir = run;
  req.prompts_dir = seragen::testing::SourcePath("prompts");
  auto dataset = publish::ExportDataset({req}, dir.Sub("dataset"), "test");
  INFO(dataset.status().ToString());
  REQUIRE(dataset.ok());
  v.card = *ReadFile(dataset->card_path);
  return v;
}

std::string Cents(const nlohmann::json& usd) { return fmt::format("${:.2f}", usd.get<double>()); }

// Every figure of the ledger is shown alike by status (text and --json), the
// report's index and the dataset card.
void CheckViewsAgree(const Views& v) {
  const std::vector<runview::CostLine> lines = runview::CostLines(v.status.cost);
  REQUIRE(lines.size() >= 3);  // total, per accepted row, at least one stage
  for (const runview::CostLine& line : lines) {
    INFO(line.label << " " << line.value);
    CHECK(v.text.find(line.label + " " + line.value) != std::string::npos);
    CHECK(v.index.find("<tr><td>cost " + line.label + "</td><td>" + line.value + "</td></tr>") != std::string::npos);
    CHECK(v.card.find("| " + line.label + " | " + line.value + " |") != std::string::npos);
  }
  const nlohmann::json& cost = v.json["cost"];
  CHECK(Cents(cost["total_usd"]) == lines[0].value);
  CHECK(Cents(cost["per_accepted_usd"]) == lines[1].value);
  CHECK(cost["accepted"] == v.status.breakdown.accepted);
  CHECK(cost["by_stage"].size() == lines.size() - 2);
  for (const auto& [stage, usd] : cost["by_stage"].items()) {
    CHECK(v.text.find(stage + " " + Cents(usd)) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("status, report and dataset card show the same cost figures, to the cent", "[report][cost]") {
  seragen::testing::TempDir dir;
  Views v = ViewsOf(dir, "  pricing: {prompt_per_mtok: 3.0, completion_per_mtok: 15.0, cached_per_mtok: 0.3}\n");
  REQUIRE(v.status.cost.known);
  REQUIRE(v.status.cost.accepted > 0);
  CheckViewsAgree(v);
  CHECK(v.json["cost"]["basis"] == "tokens");
  CHECK(v.card.find("## Cost") != std::string::npos);
  CHECK(v.index.find("<td>cost basis</td><td>per-token prices") != std::string::npos);
}

TEST_CASE("two endpoints priced differently: status, report and dataset card agree with the hand-computed cost",
          "[report][cost]") {
  seragen::testing::TempDir dir;
  // The local endpoint has its own prices (its cached price taken from llm.pricing); the hosted one has none.
  Views v = ViewsOf(dir,
                    "      pricing: {prompt_per_mtok: 50, completion_per_mtok: 100}\n"
                    "    - base_url: https://api.example/v1\n"
                    "  pricing: {prompt_per_mtok: 300, completion_per_mtok: 1500, cached_per_mtok: 30}\n",
                    {"http://127.0.0.1:9/v1", "https://api.example/v1"});
  REQUIRE(v.status.cost.known);
  CheckViewsAgree(v);
  // Each record: local 900 prompt at $50 + 100 cached at $30 + 200 completion at $100 = $0.068;
  // hosted 200 prompt at $300 + 100 completion at $1500 = $0.21; $0.278 in all. 90 records (per 10
  // tasks: 4 accepted and 2 rejected of 6 records, 1 skipped of 4, 1 failed of 3, 1 running of 2).
  const nlohmann::json& cost = v.json["cost"];
  CHECK(cost["total_usd"].get<double>() == Approx(90 * 0.278));
  CHECK(cost["per_accepted_usd"].get<double>() == Approx(90 * 0.278 / 8));
  CHECK(cost["by_stage"]["rollout1_done"].get<double>() == Approx(18 * 0.278));
  CHECK(cost["by_stage"]["judge_done"].get<double>() == Approx(14 * 0.278));
  CHECK(v.text.find("total $25.02") != std::string::npos);
  CHECK(v.index.find("<tr><td>cost total</td><td>$25.02</td></tr>") != std::string::npos);
  CHECK(v.card.find("| total | $25.02 |") != std::string::npos);
  CHECK(v.text.find("llm.endpoints[].pricing") != std::string::npos);  // the basis names where prices come from
}

TEST_CASE("a run without prices shows no cost figure in status, report or dataset card", "[report][cost]") {
  seragen::testing::TempDir dir;
  Views v = ViewsOf(dir, "");
  CHECK_FALSE(v.status.cost.known);
  CHECK(v.text.find("cost") == std::string::npos);
  CHECK(v.json["cost"].is_null());
  CHECK_FALSE(v.json.contains("cost_usd"));  // no $0.00 standing in for "not priced"
  CHECK(v.index.find("<td>cost") == std::string::npos);
  CHECK(v.card.find("Cost") == std::string::npos);
  CHECK(v.card.find('$') == std::string::npos);
}

}  // namespace seragen::report
