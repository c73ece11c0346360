#include "seragen/export/test_runs.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "seragen/base/json_depth.h"

namespace seragen::exporter {
namespace {

// Runners as word sequences; "python -m pytest" matches python3 and
// python3.11 too (a word that starts with "python").
const std::vector<std::vector<std::string_view>>& Runners() {
  static const std::vector<std::vector<std::string_view>> runners = {
      {"pytest"},
      {"py.test"},
      {"python", "-m", "pytest"},
      {"python", "-m", "unittest"},
      {"go", "test"},
      {"cargo", "test"},
      {"npm", "test"},
      {"npm", "run", "test"},
      {"npm", "t"},
      {"yarn", "test"},
      {"pnpm", "test"},
      {"jest"},
      {"vitest"},
      {"mocha"},
      {"tox"},
      {"nox"},
      {"make", "test"},
      {"make", "check"},
      {"ctest"},
      {"mvn", "test"},
      {"gradle", "test"},
      {"./gradlew", "test"},
      {"rspec"},
      {"phpunit"},
      {"dotnet", "test"},
  };
  return runners;
}

std::vector<std::string_view> Words(std::string_view command) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < command.size()) {
    while (i < command.size() && std::string_view(" \t\n;&|()'\"").find(command[i]) != std::string_view::npos) ++i;
    std::size_t start = i;
    while (i < command.size() && std::string_view(" \t\n;&|()'\"").find(command[i]) == std::string_view::npos) ++i;
    if (i > start) words.push_back(command.substr(start, i - start));
  }
  return words;
}

bool WordMatches(std::string_view word, std::string_view want) {
  if (want == "python") return word.starts_with("python");
  // A path to the runner counts: /env/bin/pytest, node_modules/.bin/jest.
  std::size_t slash = word.rfind('/');
  return word == want || (want.find('/') == std::string_view::npos && slash != std::string_view::npos &&
                          word.substr(slash + 1) == want);
}

std::optional<std::string> CommandOf(const llm::ToolCall& call) {
  if (!call.arguments_valid || !CheckJsonDepth(call.arguments_json, "tool call arguments").ok()) return std::nullopt;
  nlohmann::json args = nlohmann::json::parse(call.arguments_json, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object() || !args.contains("command") || !args["command"].is_string()) return std::nullopt;
  return args["command"].get<std::string>();
}

}  // namespace

bool IsTestCommand(std::string_view command, std::string_view test_command) {
  if (!test_command.empty() && command.find(test_command) != std::string_view::npos) return true;
  const std::vector<std::string_view> words = Words(command);
  for (const auto& runner : Runners()) {
    for (std::size_t i = 0; i + runner.size() <= words.size(); ++i) {
      bool all = true;
      for (std::size_t k = 0; k < runner.size() && all; ++k) all = WordMatches(words[i + k], runner[k]);
      if (all) return true;
    }
  }
  return false;
}

namespace {

std::string_view Trim(std::string_view s) {
  const std::string_view space = " \t\n\r";
  const std::size_t first = s.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

// `command` without one leading "cd DIR && " (DIR one plain word).
std::string_view WithoutCd(std::string_view command) {
  if (!command.starts_with("cd ")) return command;
  const std::size_t amp = command.find(" && ");
  if (amp == std::string_view::npos) return command;
  const std::string_view dir = Trim(command.substr(3, amp - 3));
  const bool plain = !dir.empty() && dir.find_first_of(" \t;&|<>()$`'\"\\*?") == std::string_view::npos;
  return plain ? Trim(command.substr(amp + 4)) : command;
}

}  // namespace

bool IsConfiguredTestCommand(std::string_view command, std::string_view test_command) {
  const std::string_view want = Trim(test_command);
  return !want.empty() && WithoutCd(Trim(command)) == want;
}

std::optional<TestRun> LastTestRun(const agent::Trajectory& t, std::string_view test_command) {
  std::optional<TestRun> last;
  for (const agent::TurnRecord& turn : t.turns) {
    if (!turn.accepted || !turn.command_exit_code || turn.response.tool_calls.empty()) continue;
    std::optional<std::string> command = CommandOf(turn.response.tool_calls.front());
    if (command && IsTestCommand(*command, test_command)) last = TestRun{*command, *turn.command_exit_code};
  }
  return last;
}

}  // namespace seragen::exporter
