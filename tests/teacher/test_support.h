// Test helpers for the teacher: a fixture Python repository held in memory,
// fake tools that follow the tool contract (numbered `view`, exact-once
// `str_replace`, grep-like search, two-step submit), request builders and a
// tiny blocking HTTP client.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "teacher/options.h"
#include "teacher/policy.h"
#include "teacher/prompt_set.h"

namespace seragen::teacher::testing {

std::string PromptsDir();
const PromptSet& Prompts();  // loaded once from the source tree
std::string ReadPrompt(const std::string& file);

// The OpenAI `tools` array the agent offers (names per `roles`).
nlohmann::json ToolsJson(const ToolRoles& roles = {});

// Files of the fixture repository, by path relative to /repo.
std::map<std::string, std::string> FixtureRepo();

// Rendered rollout-1 / rollout-2 instance prompts (`test_command` "": none).
std::string Rollout1Prompt(const std::string& function, const std::string& file, int category_index,
                           const std::string& test_command = "");
std::string Rollout2Prompt(const std::string& issue_text, const std::string& test_command = "");

// Executes tool calls against an in-memory repository, like the real tools.
// Shell commands it understands: grep, find, py_compile, `python3 FILE`
// (prints "ran FILE"), `rm FILE`, and `cd /repo && CMD` (prints "tests ran: CMD").
class FakeTools {
 public:
  explicit FakeTools(std::map<std::string, std::string> files) : files_(std::move(files)), original_(files_) {}
  std::string Run(const std::string& name, const std::string& arguments);
  const std::map<std::string, std::string>& files() const { return files_; }
  // Unified-diff-like listing of changed lines ("-old" / "+new") per file.
  std::string Patch() const;
  int submits() const { return submits_; }
  // Views longer than this many characters are clipped (like the real editor).
  std::size_t view_max_chars = 20000;

  // Every str_replace call made: the file text it applied to and old_str.
  struct EditRecord {
    std::string file_text_before;
    std::string old_str;
    std::string new_str;
    bool applied = false;
  };
  const std::vector<EditRecord>& edits() const { return edits_; }

 private:
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> original_;
  std::vector<EditRecord> edits_;
  int submits_ = 0;
};

// Result of driving the policy through a whole rollout.
struct RolloutRun {
  nlohmann::json messages;  // the conversation, OpenAI shape
  std::vector<PolicyReply> replies;
  std::string patch;
  bool submitted = false;
};

// Drives Decide() turn by turn with FakeTools until the second submit or
// `max_turns`.
RolloutRun DriveRollout(const std::string& instance_prompt, const PolicyContext& context, int max_turns = 20,
                        std::map<std::string, std::string> files = FixtureRepo(), std::size_t view_max_chars = 20000);

// Parses a request JSON into ChatRequest (aborts the test on failure).
ChatRequest MustParse(const nlohmann::json& request);

PolicyContext DefaultContext(std::uint64_t seed = 7);

// Blocking HTTP/1.1 client for loopback tests.
struct HttpResult {
  int status = 0;  // 0 when the connection failed or was reset
  std::string body;
  std::map<std::string, std::string> headers;  // lowercase names
  std::string error;                           // transport error text
};
HttpResult HttpCall(int port, const std::string& method, const std::string& target, const std::string& body = "",
                    int timeout_ms = 5000);

// A 20-turn conversation body for benchmarks and load tests.
std::string LongConversationBody(int turns);

}  // namespace seragen::teacher::testing
