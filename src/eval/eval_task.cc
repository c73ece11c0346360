#include "seragen/eval/eval_task.h"

#include <nlohmann/json.hpp>

#include "json_line.h"
#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"

namespace seragen::eval {
namespace {

using detail::Json;

constexpr std::uint64_t kMaxEvalFileBytes = 1ull << 30;

// Reads `key` of `j` into `out` when present with the right type; an error
// names it otherwise (`required`) or when mistyped.
template <typename T>
Status Field(const Json& j, const char* key, T* out, bool required = true) {
  const Json* value = detail::Present(j, key);
  if (value == nullptr) {
    return required ? ParseError(std::string("field '") + key + "' is missing") : Status::Ok();
  }
  try {
    *out = value->get<T>();
  } catch (const Json::exception&) {
    return ParseError(std::string("field '") + key + "' has the wrong type");
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeEvalTask(const EvalTask& t) {
  Json s = {{"task_id", t.task_id},
            {"repo_source", t.repo_source},
            {"function_id", t.function_id},
            {"file", t.file},
            {"qualname", t.qualname},
            {"language", t.language},
            {"category", t.category},
            {"category_name", t.category_name},
            {"p1", t.patch},
            {"p2", t.teacher_patch2},
            {"teacher_recall", t.teacher_recall ? Json(*t.teacher_recall) : Json()},
            {"verify_rule", t.verify_rule},
            {"verify_threshold", t.verify_threshold},
            {"environment_key", t.environment_key},
            {"test_command", t.test_command}};
  if (t.test_evidence) {
    s["test_evidence"] = {{"command", t.test_evidence->command},
                          {"base", t.test_evidence->base},
                          {"p1", t.test_evidence->p1},
                          {"p2", t.test_evidence->p2},
                          {"verdict", t.test_evidence->verdict}};
  }
  // SWE-bench's own keys; the test lists stay empty (JSON text, as SWE-bench stores them)
  // until test evidence names tests.
  Json j = {{"instance_id", t.instance_id},
            {"repo", t.repo},
            {"base_commit", t.base_commit},
            {"problem_statement", t.problem_statement},
            {"patch", t.patch},
            {"test_patch", ""},
            {"hints_text", ""},
            {"FAIL_TO_PASS", "[]"},
            {"PASS_TO_PASS", "[]"},
            {"seragen", s}};
  return detail::DumpLine(j);
}

Result<EvalTask> DecodeEvalTask(std::string_view line) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(line, "eval task"));
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseError("not a JSON object");
  EvalTask t;
  SG_RETURN_IF_ERROR(Field(j, "instance_id", &t.instance_id));
  SG_RETURN_IF_ERROR(Field(j, "repo", &t.repo));
  SG_RETURN_IF_ERROR(Field(j, "base_commit", &t.base_commit));
  SG_RETURN_IF_ERROR(Field(j, "problem_statement", &t.problem_statement));
  SG_RETURN_IF_ERROR(Field(j, "patch", &t.patch));
  auto s = j.find("seragen");
  if (s == j.end() || !s->is_object()) return ParseError("field 'seragen' is missing or not an object");
  SG_RETURN_IF_ERROR(Field(*s, "task_id", &t.task_id));
  for (auto [key, out] :
       {std::pair{"repo_source", &t.repo_source}, std::pair{"function_id", &t.function_id}, std::pair{"file", &t.file},
        std::pair{"qualname", &t.qualname}, std::pair{"language", &t.language},
        std::pair{"category_name", &t.category_name}, std::pair{"p2", &t.teacher_patch2},
        std::pair{"verify_rule", &t.verify_rule}, std::pair{"environment_key", &t.environment_key},
        std::pair{"test_command", &t.test_command}}) {
    SG_RETURN_IF_ERROR(Field(*s, key, out, false));
  }
  SG_RETURN_IF_ERROR(Field(*s, "category", &t.category, false));
  SG_RETURN_IF_ERROR(Field(*s, "verify_threshold", &t.verify_threshold, false));
  double recall = 0;
  if (auto r = s->find("teacher_recall"); r != s->end() && !r->is_null()) {
    SG_RETURN_IF_ERROR(Field(*s, "teacher_recall", &recall));
    t.teacher_recall = recall;
  }
  if (auto e = s->find("test_evidence"); e != s->end() && e->is_object()) {
    TestEvidence ev;
    for (auto [key, out] : {std::pair{"command", &ev.command}, std::pair{"base", &ev.base}, std::pair{"p1", &ev.p1},
                            std::pair{"p2", &ev.p2}, std::pair{"verdict", &ev.verdict}}) {
      SG_RETURN_IF_ERROR(Field(*e, key, out, false));
    }
    t.test_evidence = ev;
  }
  return t;
}

Result<std::vector<EvalTask>> ReadEvalTasks(const std::string& path) {
  std::vector<EvalTask> tasks;
  int line_no = 0;
  SG_RETURN_IF_ERROR(ForEachLine(path, kMaxEvalFileBytes, [&](const FileLine& line) -> Status {
    ++line_no;
    if (!line.terminated) return DataLossError(path + " line " + std::to_string(line_no) + ": cut short");
    if (line.text.empty()) return Status::Ok();
    Result<EvalTask> task = DecodeEvalTask(line.text);
    if (!task.ok()) return ParseError(path + " line " + std::to_string(line_no) + ": " + task.status().message());
    tasks.push_back(std::move(*task));
    return Status::Ok();
  }));
  return tasks;
}

}  // namespace seragen::eval
