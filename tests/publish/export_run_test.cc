// `seragen export` over a hand-written run directory: which rollouts the
// journal lets ship as T1 (the judge rule) and what each record says.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/callgraph/plan.h"
#include "seragen/export/heldout_filter.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"
#include "seragen/publish/export_dataset.h"
#include "seragen/publish/export_run.h"
#include "seragen/publish/export_secrets_status.h"
#include "seragen/runview/status_report.h"
#include "testing/fake_secrets.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::publish {
namespace {

using journal::JournalRecord;
using journal::Stage;

llm::Message Call(const std::string& id, const std::string& name, const std::string& args) {
  llm::ToolCall c;
  c.id = id;
  c.name = name;
  c.arguments_json = args;
  c.arguments_raw = args;
  c.arguments_valid = true;
  return {llm::Role::kAssistant, "", "thinking", {c}, "", ""};
}

// A submitted rollout 1 whose patch is `patch`, in a shape export accepts:
// it runs `command` in bash and sees `observation`.
agent::Trajectory Rollout1(const std::string& id, const std::string& patch, const std::string& command,
                           const std::string& observation) {
  agent::Trajectory t;
  t.task_id = id;
  t.model = "teacher";
  t.history = {{llm::Role::kSystem, "system", "", {}, "", ""},
               {llm::Role::kUser, "task", "", {}, "", ""},
               Call("c1", "bash", nlohmann::json{{"command", command}}.dump()),
               {llm::Role::kTool, observation, "", {}, "c1", ""},
               Call("c2", "submit", "{}"),
               {llm::Role::kTool, "done", "", {}, "c2", ""}};
  t.patch = patch;
  t.has_patch = true;
  return t;
}

// One task of the made-up run: its journal records after `planned` and the
// patch of its rollout 1.
struct TaskScript {
  std::string id;
  std::string patch;
  std::vector<std::pair<Stage, std::string>> after_rollout1;  // (stage, status)
  std::optional<std::uint64_t> category;                      // recorded on rollout1_done
  std::string command = "ls";                                 // rollout 1's one bash call
  std::string observation = "a.py";                           // and what it printed
  std::string file = "a.py";                                  // of the planned function
  bool heldout = false;                                       // in the eval split
  std::optional<agent::Trajectory> trajectory;                // instead of Rollout1(...)
};

constexpr int kPlannedCategory = 3;

// Writes tasks.jsonl, shard-0's journal and the rollout-1 trajectories.
void WriteRun(const std::string& run_dir, const std::vector<TaskScript>& tasks) {
  std::vector<callgraph::PlannedTask> plan;
  std::string shard = journal::ShardDir(run_dir, 0);
  REQUIRE(MakeDirs(shard + "/" + std::string(journal::kTrajectoriesDir)).ok());
  journal::JournalHeader header;
  header.config_hash = "recipe";
  std::string text = journal::EncodeHeader(header) + "\n";
  auto add = [&text](const JournalRecord& r) {
    Result<std::string> line = journal::EncodeRecord(r);
    REQUIRE(line.ok());
    text += *line + "\n";
  };
  for (const TaskScript& s : tasks) {
    callgraph::PlannedTask p;
    p.task_id = s.id;
    p.repo = "r";
    p.file = s.file;
    p.function_id = s.file + "::f";
    p.category = kPlannedCategory;
    p.heldout = s.heldout;
    plan.push_back(p);
    add({s.id, Stage::kPlanned, "", 1});
    JournalRecord r1{s.id, Stage::kRollout1Done, "submitted", 1};
    r1.refs[journal::kRefRollout1] = journal::TrajectoryRef(s.id, 1);
    if (s.category) r1.extra = journal::RolloutResult{true, "", 0, 0, 0, s.category, 42};
    add(r1);
    REQUIRE(WriteFileAtomic(shard + "/" + r1.refs[journal::kRefRollout1],
                            agent::TrajectoryToJson(s.trajectory ? *s.trajectory
                                                                 : Rollout1(s.id, s.patch, s.command, s.observation)))
                .ok());
    for (const auto& [stage, status] : s.after_rollout1) {
      JournalRecord r{s.id, stage, status, 1};
      if (stage == Stage::kFailed)
        r.error = journal::ErrorInfo{journal::ParseErrorClass("model.judge"), "judge call failed", false};
      add(r);
    }
  }
  REQUIRE(WriteFileAtomic(journal::TasksPath(run_dir), callgraph::WriteTasksJsonl(plan)).ok());
  REQUIRE(WriteFileAtomic(journal::JournalPath(shard), text).ok());
}

// The T1 file of an export with these rules.
std::string ExportT1(const std::string& run_dir, exporter::ExportRules rules) {
  ExportRequest req;
  req.run_dir = run_dir;
  req.prompts_dir = seragen::testing::SourcePath("prompts");
  req.rules = rules;
  req.rules.t2 = false;
  Result<ExportReport> report = ExportRun(req);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  Result<std::string> text = ReadFile(report->t1_path);
  REQUIRE(text.ok());
  return *text;
}

// The task ids of the T1 records of an export with these rules.
std::vector<std::string> ExportedT1(const std::string& run_dir, exporter::ExportRules rules) {
  const std::string text = ExportT1(run_dir, rules);
  std::vector<std::string> ids;
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    ids.push_back(nlohmann::json::parse(text.substr(at, end - at))["metadata"]["task_id"].get<std::string>());
  }
  return ids;
}

// An export of T1 only, judge off, `format`, scanned with the shipped rules.
ExportRequest ScannedT1Request(const std::string& run_dir, exporter::Format format,
                               const std::vector<std::string>& allow = {}) {
  ExportRequest req;
  req.run_dir = run_dir;
  req.prompts_dir = seragen::testing::SourcePath("prompts");
  req.options.format = format;
  req.rules.judge_enabled = false;
  req.rules.t2 = false;
  auto scanner = secrets::LoadSecretScanner(seragen::testing::SourcePath("configs/secret_rules.yaml"), allow);
  REQUIRE(scanner.ok());
  req.secret_scanner = *scanner;
  return req;
}

// A run of one task whose rollout 1 greps for every fake secret, sees them
// all and patches a file holding the first one.
struct SecretRun {
  std::vector<testing::FakeSecret> fakes = testing::FakeSecrets();
  testing::TempDir dir;

  SecretRun() {
    std::string seen;
    for (const testing::FakeSecret& f : fakes) seen += f.text + "\n";
    TaskScript task{"leaky", "+" + fakes[0].text + "\n", {}};
    task.command = "grep -r '" + fakes[1].secret + "' .";
    task.observation = seen;
    WriteRun(dir.path(), {task});
  }

  // Exports `format` with the shipped rules; the T1 text and the summary.
  std::pair<std::string, ExportReport> Export(exporter::Format format, secrets::SecretAction action,
                                              const std::vector<std::string>& allow = {},
                                              const std::string& report_path = "") const {
    ExportRequest req = ScannedT1Request(dir.path(), format, allow);
    req.secret_action = action;
    req.secrets_report = report_path;
    Result<ExportReport> report = ExportRun(req);
    INFO(report.status().ToString());
    REQUIRE(report.ok());
    Result<std::string> text = ReadFile(report->t1_path);
    REQUIRE(text.ok());
    return {*text, *report};
  }
};

// The first fake secret of `rule` (the k-th with k).
std::string FakeOf(const std::vector<testing::FakeSecret>& fakes, const std::string& rule, int k = 0) {
  for (const testing::FakeSecret& f : fakes) {
    if (f.rule == rule && k-- == 0) return f.secret;
  }
  FAIL("no fake secret for " << rule);
  return "";
}

// Secrets only a scan of decoded values and of every field finds (issue 36,
// findings 3 and 4 and the unscanned tool-call id): a key written through
// the editor into a file (its lines JSON-escaped in the arguments) and into
// a JSON string inside that file, assignments whose quotes are escaped in
// the arguments, a test command holding a token (metadata.tests comes from
// the raw turns), and a tool-call id the model chose.
struct DecodedSecretRun {
  std::vector<testing::FakeSecret> fakes = testing::FakeSecrets();
  std::string key = FakeOf(fakes, "private-key-block"), key_in_json = FakeOf(fakes, "private-key-block", 2);
  std::string key_id = FakeOf(fakes, "gcp-service-account-key-id"), db = FakeOf(fakes, "generic-assignment");
  std::string aws_secret = FakeOf(fakes, "aws-secret-access-key"), token = FakeOf(fakes, "github-token");
  std::string call_id = FakeOf(fakes, "aws-access-key-id");
  testing::TempDir dir;

  DecodedSecretRun() {
    const std::string file = "KEY = \"\"\"\n" + key + "\n\"\"\"\nCONFIG = '{\"private_key_id\": \"" + key_id +
                             "\", \"private_key\": \"" + key_in_json + "\"}'\n";
    const std::string command =
        "DB_PASSWORD=\"" + db + "\" aws_secret_access_key=\"" + aws_secret + "\" GITHUB_TOKEN=" + token + " pytest -q";
    agent::Trajectory t = Rollout1("decoded", "+x = 1\n", command, "1 passed");
    llm::Message edit =
        Call(call_id, "editor",
             nlohmann::json{{"command", "create"}, {"path", "/repo/deploy.py"}, {"file_text", file}}.dump());
    t.history.insert(t.history.begin() + 2, {edit, {llm::Role::kTool, "written", "", {}, call_id, ""}});
    agent::TurnRecord test_turn;
    test_turn.accepted = true;
    test_turn.command_exit_code = 0;
    test_turn.response.tool_calls = t.history[4].tool_calls;
    t.turns = {test_turn};
    TaskScript task{"decoded", t.patch, {}};
    task.trajectory = t;
    WriteRun(dir.path(), {task});
  }

  std::vector<std::string> Secrets() const {
    std::vector<std::string> out = {key_id, db, aws_secret, token, call_id};
    for (std::string k : {key, key_in_json}) {  // every line of each key's body, alone
      for (std::size_t p; (p = k.find("\\n")) != std::string::npos;) k.replace(p, 2, "\n");
      std::istringstream lines(k);
      for (std::string line; std::getline(lines, line);) {
        if (line.size() >= 16 && line.find("-----") == std::string::npos) out.push_back(line);
      }
    }
    return out;
  }
};

}  // namespace

TEST_CASE("export: decoded argument strings, test commands and call ids are scanned in every format", "[export]") {
  DecodedSecretRun run;
  REQUIRE(run.Secrets().size() > 8);
  for (const std::string& name : exporter::FormatNames()) {
    INFO(name);
    Result<ExportReport> report = ExportRun(ScannedT1Request(run.dir.path(), *exporter::ParseFormat(name)));
    REQUIRE(report.ok());
    CHECK(report->t1_written == 1);
    Result<std::string> text = ReadFile(report->t1_path);
    REQUIRE(text.ok());
    for (const std::string& secret : run.Secrets()) {
      INFO(secret.substr(0, 12));
      CHECK(text->find(secret) == std::string::npos);
    }
    nlohmann::json tests = nlohmann::json::parse(*text)["metadata"]["tests"];
    CHECK(tests["source"] == "model");
    CHECK(tests["command"].get<std::string>().find("<REDACTED:github-token:") != std::string::npos);
    for (const char* rule : {"private-key-block", "generic-assignment", "aws-secret-access-key",
                             "gcp-service-account-key-id", "aws-access-key-id"}) {
      CHECK(report->secrets.hits_by_rule.count(rule) == 1);
    }
  }
}

TEST_CASE("export: every format carries no seeded secret under redact, one placeholder per secret", "[export]") {
  SecretRun run;
  for (const std::string& name : exporter::FormatNames()) {
    INFO(name);
    auto [text, report] = run.Export(*exporter::ParseFormat(name), secrets::SecretAction::kRedact);
    CHECK(report.t1_written == 1);
    for (const testing::FakeSecret& f : run.fakes) CHECK(text.find(f.secret) == std::string::npos);
    // The secret in the patch and in the observation: the same placeholder.
    std::size_t at = text.find("<REDACTED:" + run.fakes[0].rule + ":");
    REQUIRE(at != std::string::npos);
    std::string placeholder = text.substr(at, text.find('>', at) + 1 - at);
    std::size_t count = 0;
    for (std::size_t p = text.find(placeholder); p != std::string::npos; p = text.find(placeholder, p + 1)) ++count;
    CHECK(count >= 2);
    CHECK(report.secrets.rows_scanned == 1);
    CHECK(report.secrets.rows_redacted == 1);
    std::set<std::string> rules;
    for (const testing::FakeSecret& f : run.fakes) rules.insert(f.rule);
    CHECK(report.secrets.hits_by_rule.size() == rules.size());
    Result<std::string> summary = ReadFile(journal::DataDir(run.dir.path()) + "/" + journal::ExportSummaryName(name));
    REQUIRE(summary.ok());
    CHECK(nlohmann::json::parse(*summary)["secrets"]["rows_redacted"] == 1);
  }
}

TEST_CASE("export: drop leaves a row with a secret out, counted, and an allow-listed secret passes", "[export]") {
  SecretRun run;
  auto [dropped, report] = run.Export(exporter::Format::kHf, secrets::SecretAction::kDrop);
  CHECK(dropped.empty());
  CHECK(report.excluded.at(kT1Secret) == 1);
  CHECK(report.secrets.rows_dropped == 1);
  CHECK(FormatExport(report).find("1 dropped") != std::string::npos);
  Result<runview::StatusReport> status = runview::ReadStatus(run.dir.path());
  REQUIRE(status.ok());
  status->export_secrets = ReadExportSecrets(run.dir.path());  // the export's summary, as `status` reads it
  CHECK(status->export_secrets.at("hf").rows_dropped == 1);
  CHECK(nlohmann::json::parse(runview::StatusJson(*status))["export_secrets"]["hf"]["rows_dropped"] == 1);
  CHECK(runview::FormatStatus(*status).find("export     hf secrets: 1 rows scanned") != std::string::npos);

  std::vector<std::string> allow;
  for (const testing::FakeSecret& f : run.fakes) allow.push_back(f.secret);
  auto [kept, clean] = run.Export(exporter::Format::kHf, secrets::SecretAction::kDrop, allow);
  CHECK(clean.t1_written == 1);
  CHECK(kept.find(run.fakes[1].secret) != std::string::npos);
  CHECK(clean.secrets.rows_with_hits == 0);
}

TEST_CASE("export: the secrets report names task, message, rule and hash, never the secret", "[export]") {
  SecretRun run;
  std::string path = run.dir.path() + "/secrets.jsonl";
  auto [text, report] = run.Export(exporter::Format::kHf, secrets::SecretAction::kReport, {}, path);
  CHECK(report.secrets.rows_reported == 1);
  CHECK(text.find(run.fakes[1].secret) != std::string::npos);  // report keeps the row unchanged
  Result<std::string> lines = ReadFile(path);
  REQUIRE(lines.ok());
  for (const testing::FakeSecret& f : run.fakes) CHECK(lines->find(f.secret) == std::string::npos);
  auto first = nlohmann::json::parse(lines->substr(0, lines->find('\n')));
  CHECK(first["task_id"] == "leaky");
  CHECK(first["rollout"] == 1);
  CHECK(first["message"] == 2);  // the bash call's arguments
  CHECK(first["part"] == "arguments");
  CHECK(first["hash8"].get<std::string>().size() == 8);
}

TEST_CASE("export: a T1 ships only with a judge yes for that attempt", "[export]") {
  testing::TempDir dir;
  // Task ids sort in this order, and tasks are exported in id order.
  WriteRun(dir.path(), {
                           // The unjudged copy of a duplicate pair comes first.
                           {"a-duplicate", "patch P", {{Stage::kSkipped, "duplicate_p1"}}},
                           {"b-judged", "patch P", {{Stage::kJudgeDone, "yes"}}},
                           {"c-judge-failed", "patch C", {{Stage::kFailed, "judge"}}},
                           {"d-interrupted", "patch D", {}},
                           // Its patch was rejected by the judge in task f; it never met the judge itself.
                           {"e-duplicate-of-rejected", "patch R", {{Stage::kSkipped, "duplicate_p1"}}},
                           {"f-rejected", "patch R", {{Stage::kJudgeDone, "no"}, {Stage::kSkipped, "judge_no"}}},
                           // Judged yes, then rollout 1 redone (its trajectory was unreadable): not judged.
                           {"g-redone", "patch G", {{Stage::kJudgeDone, "yes"}, {Stage::kRollout1Done, "submitted"}}},
                       });
  CHECK(ExportedT1(dir.path(), {}) == std::vector<std::string>{"b-judged"});

  exporter::ExportRules no_judge;
  no_judge.judge_enabled = false;  // a run without a judge ships every submitted rollout 1
  CHECK(ExportedT1(dir.path(), no_judge) == std::vector<std::string>{"a-duplicate", "c-judge-failed", "d-interrupted",
                                                                     "e-duplicate-of-rejected", "g-redone"});
}

TEST_CASE("export: no held-out task and no row touching a held-out file reaches a training export", "[export]") {
  testing::TempDir dir;
  auto diff = [](const std::string& file) {
    return "diff --git a/" + file + " b/" + file + "\n--- a/" + file + "\n+++ b/" + file + "\n@@ -1 +1 @@\n-x\n+y\n";
  };
  TaskScript train{"a-train", diff("a.py"), {}};
  TaskScript held{"b-held", diff("pkg/h.py"), {}};
  held.file = "pkg/h.py";
  held.heldout = true;
  TaskScript leaks{"c-leaks", diff("a.py") + diff("pkg/h.py"), {}};  // a training task that edits held-out code
  TaskScript renamed{"d-renamed", "diff --git a/pkg/h.py b/pkg/g.py\nrename from pkg/h.py\nrename to pkg/g.py\n", {}};
  WriteRun(dir.path(), {train, held, leaks, renamed});
  exporter::ExportRules rules;
  rules.judge_enabled = false;
  CHECK(ExportedT1(dir.path(), rules) == std::vector<std::string>{"a-train"});
  ExportRequest req;
  req.run_dir = dir.path();
  req.prompts_dir = seragen::testing::SourcePath("prompts");
  req.rules = rules;
  Result<ExportReport> report = ExportRun(req);
  REQUIRE(report.ok());
  CHECK(report->excluded.at(exporter::kHeldOutTask) == 1);
  CHECK(report->excluded.at(exporter::kT1TouchesHeldOut) == 2);
}

TEST_CASE("export: records name the category their attempt was given, and the planned one", "[export]") {
  testing::TempDir dir;
  // Rollout 1 accepted on an attempt that drew category 7 after a judge no.
  WriteRun(dir.path(), {{"retried", "patch", {{Stage::kJudgeDone, "yes"}}, 7},
                        {"old-journal", "other", {{Stage::kJudgeDone, "yes"}}}});
  std::string text = ExportT1(dir.path(), {});
  std::size_t newline = text.find('\n');
  REQUIRE(newline != std::string::npos);
  auto old = nlohmann::json::parse(text.substr(0, newline))["metadata"];
  auto retried =
      nlohmann::json::parse(text.substr(newline + 1, text.find('\n', newline + 1) - newline - 1))["metadata"];
  CHECK(retried["task_id"] == "retried");
  CHECK(retried["category_index"] == 7);
  CHECK(retried["planned_category_index"] == kPlannedCategory);
  CHECK(retried["seed"] == 42);
  CHECK(retried["category"] != old["category"]);
  // A journal written before attempts recorded their category: the plan's.
  CHECK(old["task_id"] == "old-journal");
  CHECK(old["category_index"] == kPlannedCategory);
  CHECK(old["seed"].is_null());
}

TEST_CASE("export: several formats from one reading write what one export per format writes", "[export]") {
  SecretRun run;
  std::vector<ExportRequest> requests;
  std::map<std::string, std::string> one_by_one;
  for (const std::string& name : exporter::FormatNames()) {
    auto [text, report] = run.Export(*exporter::ParseFormat(name), secrets::SecretAction::kRedact);
    one_by_one[name] = text;
    ExportRequest req = ScannedT1Request(run.dir.path(), *exporter::ParseFormat(name));
    req.secret_action = secrets::SecretAction::kRedact;
    requests.push_back(req);
  }
  Result<std::vector<ExportReport>> reports = ExportRuns(requests);
  INFO(reports.status().ToString());
  REQUIRE(reports.ok());
  REQUIRE(reports->size() == requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string name(exporter::FormatName(requests[i].options.format));
    INFO(name);
    CHECK((*reports)[i].t1_written == 1);
    Result<std::string> text = ReadFile((*reports)[i].t1_path);
    REQUIRE(text.ok());
    CHECK(*text == one_by_one[name]);
  }
  CHECK_FALSE(ExportRuns({}).ok());
}

}  // namespace seragen::publish

namespace seragen::publish {
namespace {

// A run of two judged-free tasks: "plain" and "markup", whose one bash call
// greps a chat template for its </tool_call> closing tag.
void WriteMarkupRun(const std::string& run_dir) {
  TaskScript markup{"markup", "+b\n", {}};
  markup.command = "grep -n '</tool_call>' template.jinja";
  WriteRun(run_dir, {{"plain", "+a\n", {}}, markup});
}

}  // namespace

TEST_CASE("export: a sharegpt row LLaMA-Factory's formatter would misread is left out, named", "[export]") {
  testing::TempDir dir;
  WriteMarkupRun(dir.path());
  Result<ExportReport> sharegpt = ExportRun(ScannedT1Request(dir.path(), exporter::Format::kSharegpt));
  REQUIRE(sharegpt.ok());
  CHECK(sharegpt->t1_written == 1);
  CHECK(sharegpt->excluded.at(exporter::kT1SharegptMarkup) == 1);
  CHECK(sharegpt->invalid == 0);
  Result<ExportReport> hf =
      ExportRun(ScannedT1Request(dir.path(), exporter::Format::kHf));  // templates render it as text
  REQUIRE(hf.ok());
  CHECK(hf->t1_written == 2);
}

TEST_CASE("export --dataset: the card says how many rows the length cut left out", "[export]") {
  testing::TempDir dir;
  WriteMarkupRun(dir.path());
  ExportRequest req = ScannedT1Request(dir.path(), exporter::Format::kHf);
  req.rules.max_record_tokens = 3;  // shorter than either conversation
  Result<DatasetReport> report = ExportDataset({req}, dir.Sub("dataset"), "test");
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  Result<std::string> card = ReadFile(report->card_path);
  REQUIRE(card.ok());
  CHECK(card->find("longer than 3 tokens (estimated as UTF-8 bytes / 4) were left out: 2 of T1, 0 of T2") !=
        std::string::npos);
}

}  // namespace seragen::publish
