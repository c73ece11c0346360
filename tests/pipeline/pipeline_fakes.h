// Fakes for pipeline tests: in-memory run store, scripted workspaces, and a
// scripted model that answers rollout, issue and judge requests.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/journal/record.h"
#include "seragen/journal/resume_state.h"
#include "seragen/pipeline/run_store.h"
#include "seragen/pipeline/workspace.h"
#include "testing/fake_chat_client.h"

namespace seragen::pipeline::testing {

class MemoryStore final : public RunStore {
 public:
  Status WriteFile(const std::string& path, std::string_view bytes) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail_writes) return IoError("disk full");
    files[path] = std::string(bytes);
    return Status::Ok();
  }
  Result<std::string> ReadFile(const std::string& path) override {
    std::lock_guard<std::mutex> l(mu);
    auto it = files.find(path);
    if (it == files.end()) return NotFoundError("no file " + path);
    return it->second;
  }
  // Like the journal: a record that does not encode is refused; what is kept
  // is the record as it reads back from its line.
  Status Append(const journal::JournalRecord& r) override {
    Result<std::string> line = journal::EncodeRecord(r);
    if (!line.ok()) return line.status();
    Result<journal::JournalEntry> back = journal::DecodeEntry(*line);
    if (!back.ok()) return back.status();
    std::lock_guard<std::mutex> l(mu);
    records.push_back(*back->record);
    return Status::Ok();
  }
  // Turn logs as the bytes the file would hold (tests may damage them).
  Result<journal::LoadedTurnLog> LoadTurnLog(const std::string& ref) override {
    std::lock_guard<std::mutex> l(mu);
    auto it = files.find(ref);
    if (it == files.end()) return NotFoundError("no file " + ref);
    return journal::ParseTurnLog(it->second, ref);
  }
  Status StartTurnLog(const std::string& ref, const journal::TurnLogHeader& header,
                      const journal::LoadedTurnLog* loaded) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail_turn_logs) return IoError("disk full");
    if (loaded) files[ref].resize(loaded->valid_bytes);
    else files[ref] = journal::EncodeTurnLogHeader(header) + "\n";
    return Status::Ok();
  }
  Status AppendTurnAnswer(const std::string& ref, const journal::TurnLogAnswer& answer) override {
    Result<std::string> line = journal::EncodeTurnLogAnswer(answer);
    if (!line.ok()) return line.status();
    std::lock_guard<std::mutex> l(mu);
    if (fail_turn_logs) return IoError("disk full");
    files[ref] += *line + "\n";
    ++turn_answers_appended;
    return Status::Ok();
  }
  Status AppendTurnOutcome(const std::string& ref, const journal::TurnLogOutcome& outcome) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail_turn_logs) return IoError("disk full");
    files[ref] += journal::EncodeTurnLogOutcome(outcome) + "\n";
    return Status::Ok();
  }
  Status RemoveTurnLog(const std::string& ref) override {
    std::lock_guard<std::mutex> l(mu);
    files.erase(ref);
    return Status::Ok();
  }
  std::vector<std::string> Stages(const std::string& task_id) const {
    std::vector<std::string> out;
    for (const auto& r : records) {
      if (r.task_id == task_id) out.push_back(std::string(journal::StageName(r.stage)) + ":" + r.status);
    }
    return out;
  }
  mutable std::mutex mu;
  std::map<std::string, std::string> files;
  std::vector<journal::JournalRecord> records;
  bool fail_writes = false;
  bool fail_turn_logs = false;
  int turn_answers_appended = 0;
};

// seragen's own test runs in scripted workspaces: the output and exit status
// of the test command given the patch applied ("" = none), and every
// command run (patches that contain "CONFLICT" do not apply).
struct ScriptedTestRuns {
  std::function<sandbox::CommandResult(const std::string& patch, const std::string& command)> run;
  std::vector<std::string> commands;
  std::vector<std::string> applied;
};

// Tools that do nothing but submit; the patch is fixed per rollout number.
class ScriptedWorkspace final : public Workspace, agent::ToolExecutor, PatchSource {
 public:
  explicit ScriptedWorkspace(std::string patch, std::string test_command = "", ScriptedTestRuns* tests = nullptr)
      : patch_(std::move(patch)), test_command_(std::move(test_command)), tests_(tests) {}
  Status ApplyPatch(const std::string& patch) override {
    if (patch.find("CONFLICT") != std::string::npos) return FailedPreconditionError("the patch does not apply");
    applied_ = patch;
    tests_->applied.push_back(patch);
    return Status::Ok();
  }
  Result<sandbox::CommandResult> RunCommand(const std::string& command, const sandbox::RunLimits&) override {
    tests_->commands.push_back(command);
    return tests_->run(applied_, command);
  }
  agent::ToolExecutor& tools() override { return *this; }
  PatchSource& patch() override { return *this; }
  std::string repo_root() const override { return "/repo"; }
  std::string test_command() const override { return test_command_; }
  std::vector<llm::ToolSpec> Specs() const override {
    return {{"bash", "run", R"({"type":"object"})"}, {"submit", "submit", R"({"type":"object"})"}};
  }
  agent::ToolOutcome Execute(const llm::ToolCall& call) override {
    agent::ToolOutcome o;
    o.text = call.name == "submit" ? "submitted" : "ok";
    o.submitted = call.name == "submit";
    return o;
  }
  Result<std::string> CurrentPatch() override { return patch_; }

 private:
  std::string patch_;
  std::string test_command_;
  ScriptedTestRuns* tests_;
  std::string applied_;
};

class ScriptedEnvironments final : public WorkspaceFactory {
 public:
  Result<std::unique_ptr<Workspace>> Acquire(const callgraph::PlannedTask& task, int) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail) return UnavailableError("pool exhausted");
    int n = ++acquired[task.task_id];
    std::string p = n == 1 ? patch1 : patch2;
    return std::unique_ptr<Workspace>(new ScriptedWorkspace(p, test_command, &tests));
  }
  std::mutex mu;
  std::map<std::string, int> acquired;
  std::string patch1 =
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+if x is None: raise ValueError\n";
  std::string patch2 =
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+if x is None: raise ValueError\n";
  bool fail = false;
  std::string test_command;  // what every environment reports as the repository's test command
  ScriptedTestRuns tests;
};

// Answers by request kind: tools offered → bash then submit; otherwise the
// issue writer or judge, told apart by the output tag the prompt asks for.
struct ScriptedModel {
  std::string issue_reply = "<issue>Calling `reserve` with 0 items crashes.</issue>";
  std::string judge_reply = "<answer>yes</answer>";
  // Used first, one per request, before the fixed replies above.
  std::deque<std::string> issue_replies, judge_replies;
  int rollout_calls = 0, issue_calls = 0, judge_calls = 0;
  std::optional<llm::FailureClass> fail_rollouts;
  std::optional<Status> fail_issue;        // every issue-writer call fails with this status
  std::int64_t rollout_prompt_tokens = 0;  // > 0: agent answers report this usage (and 1 completion token)
  // Rollout 1 (no issue written yet) never submits: it runs commands until a budget ends it.
  bool rollout1_never_submits = false;
  // Reasoning sent with every agent turn (empty: none).
  std::string rollout_reasoning;
  // The endpoint agent answers name, in turn (empty: none named).
  std::vector<std::string> rollout_endpoints;

  static std::string Next(std::deque<std::string>& queue, const std::string& fixed) {
    if (queue.empty()) return fixed;
    std::string r = queue.front();
    queue.pop_front();
    return r;
  }

  void Install(llm::FakeChatClient& chat) {
    chat.SetHandler([this](const llm::ChatRequest& req) -> Result<llm::ChatResponse> {
      if (!req.tools.empty()) {
        ++rollout_calls;
        if (fail_rollouts) return llm::MakeFailure(*fail_rollouts, "scripted failure");
        bool acted = req.messages.size() > 2 && !(rollout1_never_submits && issue_calls == 0);
        llm::ChatResponse r = acted ? llm::MakeToolCallResponse("submit", "{}")
                                    : llm::MakeToolCallResponse("bash", R"({"command":"ls"})");
        r.reasoning = rollout_reasoning;
        if (!rollout_endpoints.empty()) {
          r.endpoint = rollout_endpoints[static_cast<std::size_t>(rollout_calls - 1) % rollout_endpoints.size()];
        }
        if (rollout_prompt_tokens > 0) {
          r.usage.present = true;
          r.usage.prompt_tokens = rollout_prompt_tokens;
          r.usage.completion_tokens = 1;
          r.usage.total_tokens = rollout_prompt_tokens + 1;
        }
        return r;
      }
      const std::string& prompt = req.messages.front().content;
      if (prompt.find("</answer>") != std::string::npos) {
        ++judge_calls;
        return llm::MakeTextResponse(Next(judge_replies, judge_reply));
      }
      ++issue_calls;
      if (fail_issue) return *fail_issue;
      return llm::MakeTextResponse(Next(issue_replies, issue_reply));
    });
  }
};

}  // namespace seragen::pipeline::testing
