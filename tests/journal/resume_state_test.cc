#include "seragen/journal/resume_state.h"

#include <catch2/catch.hpp>

namespace seragen::journal {
namespace {

JournalRecord Rec(const std::string& id, Stage stage, int attempt = 1) {
  JournalRecord r;
  r.task_id = id;
  r.stage = stage;
  r.attempt = attempt;
  return r;
}

}  // namespace

TEST_CASE("resume state knows done stages, refs and finished tasks", "[journal][resume]") {
  std::vector<JournalRecord> records;
  records.push_back(Rec("a", Stage::kPlanned));
  records.push_back(Rec("b", Stage::kPlanned));
  JournalRecord r1 = Rec("a", Stage::kRollout1Done);
  r1.refs = {{"trajectory", "trajectories/a.r1.json"}, {"patch", "p/a1.diff"}};
  records.push_back(r1);
  records.push_back(Rec("a", Stage::kIssueDone));
  JournalRecord r2 = Rec("a", Stage::kRollout2Done);
  r2.refs = {{"patch", "p/a2.diff"}};
  records.push_back(r2);
  records.push_back(Rec("a", Stage::kVerified));
  records.push_back(Rec("b", Stage::kRollout1Done));

  ResumeState s = ResumeState::Fold(records);
  CHECK(s.tasks().size() == 2);
  CHECK(s.finished_count() == 1);
  CHECK(s.IsFinished("a"));
  CHECK_FALSE(s.IsFinished("b"));
  CHECK_FALSE(s.IsFinished("unknown"));
  CHECK(s.Find("unknown") == nullptr);
  CHECK(s.StageDone("b", Stage::kRollout1Done));
  CHECK_FALSE(s.StageDone("b", Stage::kIssueDone));
  const TaskProgress* a = s.Find("a");
  REQUIRE(a != nullptr);
  CHECK(a->records == 5);
  CHECK(a->last.stage == Stage::kVerified);
  CHECK(a->refs.Find("trajectory") == "trajectories/a.r1.json");
  CHECK(a->refs.Find("patch") == "p/a2.diff");  // later record wins per role
}

TEST_CASE("a retryable failure keeps the task open with its done stages", "[journal][resume]") {
  ResumeState s;
  s.Apply(Rec("a", Stage::kRollout1Done));
  JournalRecord fail = Rec("a", Stage::kFailed);
  fail.error = ErrorInfo{ParseErrorClass("infra.endpoint_unavailable"), "connection refused", true};
  s.Apply(fail);
  CHECK_FALSE(s.IsFinished("a"));
  CHECK(s.finished_count() == 0);
  CHECK(s.StageDone("a", Stage::kRollout1Done));

  // The resumed run finishes it on attempt 2.
  s.Apply(Rec("a", Stage::kIssueDone, 2));
  s.Apply(Rec("a", Stage::kRollout2Done, 2));
  s.Apply(Rec("a", Stage::kVerified, 2));
  CHECK(s.IsFinished("a"));
  CHECK(s.finished_count() == 1);
  CHECK(s.Find("a")->max_attempt == 2);
}

TEST_CASE("non-retryable failures and skips finish a task", "[journal][resume]") {
  ResumeState s;
  JournalRecord fail = Rec("a", Stage::kFailed);
  fail.error = ErrorInfo{ParseErrorClass("model.exit_format"), "three malformed turns", false};
  s.Apply(fail);
  s.Apply(Rec("b", Stage::kSkipped));
  JournalRecord no_error = Rec("c", Stage::kFailed);
  s.Apply(no_error);
  CHECK(s.IsFinished("a"));
  CHECK(s.IsFinished("b"));
  CHECK(s.IsFinished("c"));
  CHECK(s.finished_count() == 3);
  // A later record reopens a task (e.g. an operator requeued it): counts stay right.
  s.Apply(Rec("b", Stage::kPlanned, 2));
  CHECK_FALSE(s.IsFinished("b"));
  CHECK(s.finished_count() == 2);
}

TEST_CASE("a copy of a resume state folds into itself, never into the original", "[journal][resume]") {
  ResumeState original;
  original.Apply(Rec("a", Stage::kPlanned));  // "a" is now among the recently applied tasks
  ResumeState copy = original;
  copy.Apply(Rec("a", Stage::kRollout1Done));
  ResumeState moved = std::move(copy);
  moved.Apply(Rec("a", Stage::kIssueDone));
  CHECK(original.Find("a")->records == 1);
  CHECK_FALSE(original.StageDone("a", Stage::kRollout1Done));
  CHECK(moved.Find("a")->records == 3);
  CHECK(moved.StageDone("a", Stage::kRollout1Done));
  CHECK(moved.StageDone("a", Stage::kIssueDone));
}

TEST_CASE("records of many interleaved tasks fold as one task at a time would", "[journal][resume]") {
  // More tasks in flight than the state's cache of recent tasks.
  ResumeState interleaved, one_by_one;
  std::vector<JournalRecord> by_task;
  for (Stage stage : {Stage::kPlanned, Stage::kRollout1Done, Stage::kIssueDone, Stage::kVerified}) {
    for (int t = 0; t < 40; ++t) interleaved.Apply(Rec("t" + std::to_string(t), stage));
  }
  for (int t = 0; t < 40; ++t) {
    for (Stage stage : {Stage::kPlanned, Stage::kRollout1Done, Stage::kIssueDone, Stage::kVerified}) {
      one_by_one.Apply(Rec("t" + std::to_string(t), stage));
    }
  }
  REQUIRE(interleaved.tasks().size() == 40);
  CHECK(interleaved.finished_count() == 40);
  for (const auto& [id, p] : one_by_one.tasks()) {
    const TaskProgress* q = interleaved.Find(id);
    REQUIRE(q != nullptr);
    CHECK(q->records == 4);
    CHECK(q->stages_done == p.stages_done);
    CHECK(q->last == p.last);
  }
}

TEST_CASE("a stage set holds each stage once, apart from the others", "[journal][resume]") {
  StageSet set;
  CHECK(set.empty());
  set.insert(Stage::kSkipped);
  set.insert(Stage::kPlanned);
  set.insert(Stage::kPlanned);
  CHECK(set.contains(Stage::kSkipped));
  CHECK(set.count(Stage::kPlanned) == 1);
  CHECK_FALSE(set.contains(Stage::kVerified));
  set.erase(Stage::kPlanned);
  CHECK_FALSE(set.contains(Stage::kPlanned));
  CHECK(set.contains(Stage::kSkipped));
  set.clear();
  CHECK(set.empty());
}

}  // namespace seragen::journal
