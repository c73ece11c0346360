// One evaluation task (docs/EVAL.md): a held-out task of a run in the
// SWE-bench instance layout (instance_id, repo, base_commit,
// problem_statement, patch) plus seragen's own fields, one JSON object per
// line of DIR/eval.jsonl (`seragen export RUN --eval DIR`). `seragen eval`
// runs models on the same objects, so tasks run here and elsewhere
// (SWE-agent, mini-swe-agent, OpenHands) are the same tasks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::eval {

// Seragen's own test runs of a task (base, base + P1, base + P2) where the
// environment runs a test command (docs/VERIFY.md "Test evidence"): each
// run as "ran: 12 tests, 11 pass, 1 fail, 0 skip, exit 1" (or how it ended,
// e.g. "timed_out"), and whether the teacher's P2 reproduced P1's test
// outcomes (agree, disagree, no_signal, unavailable). Absent when the run
// recorded none.
struct TestEvidence {
  std::string command;
  std::string base, p1, p2;
  std::string verdict;
};

struct EvalTask {
  // SWE-bench fields.
  std::string instance_id;        // "<repo>__<task id>"
  std::string repo;               // the run's repository name
  std::string base_commit;        // the commit the task was planned at
  std::string problem_statement;  // the synthetic issue
  std::string patch;              // the teacher's reference patch (P1)
  // seragen's fields.
  std::string task_id;
  std::string repo_source;  // repos[].source of the run (a path or URL)
  std::string function_id, file, qualname, language;
  int category = 0;  // the category of the accepted rollout-1 attempt
  std::string category_name;
  std::string teacher_patch2;                 // the teacher's rollout-2 patch (P2), "" when none
  std::optional<double> teacher_recall;       // P2's recall against P1 at verification
  std::string verify_rule = "sera";           // sera | structural
  double verify_threshold = 0.5;              // resolved = recall >= this
  std::string environment_key;                // what the rollouts run in (image/rootfs/setup hash)
  std::string test_command;                   // environment.test_command, "" when unset
  std::optional<TestEvidence> test_evidence;  // see above
};

// One line (no newline): the SWE-bench keys first, then a "seragen" object.
std::string EncodeEvalTask(const EvalTask& task);
// Parses one line; errors name the field.
Result<EvalTask> DecodeEvalTask(std::string_view line);
// Every line of an eval.jsonl file (bounded size; a torn last line is an error).
Result<std::vector<EvalTask>> ReadEvalTasks(const std::string& path);

}  // namespace seragen::eval
