#include "seragen/eval/eval_log.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <variant>
#include <vector>

#include "json_line.h"
#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"

namespace seragen::eval {
namespace {

using detail::Json;

constexpr std::uint64_t kMaxLogBytes = 1ull << 30;

template <typename T>
T Get(const Json& j, const char* key, T fallback) {
  const Json* value = detail::Present(j, key);
  return value ? value->get<T>() : fallback;
}

// EvalResult's members in the order its lines list them, grouped by what
// they tell: who ran, how the rollout ended, how it scored, what it cost, where
// to look. One table serves encoding and decoding, so the two name the same keys
// (tests_passed is null when there is no test evidence).
using R = EvalResult;
using ResultMember =
    std::variant<std::string R::*, int R::*, bool R::*, double R::*, std::int64_t R::*, std::optional<bool> R::*>;

struct ResultField {
  const char* key;
  ResultMember member;
};

const std::vector<ResultField> kFieldGroups[] = {
    {{"task_id", &R::task_id}, {"instance_id", &R::instance_id}, {"seed", &R::seed}, {"exit", &R::exit}},
    {{"submitted", &R::submitted}, {"autosubmitted", &R::autosubmitted}, {"scorable", &R::scorable}},
    {{"recall", &R::recall}, {"precision", &R::precision}, {"f1", &R::f1}, {"resolved", &R::resolved}},
    {{"tests_passed", &R::tests_passed}},
    {{"prompt_tokens", &R::prompt_tokens}, {"completion_tokens", &R::completion_tokens}},
    {{"model_calls", &R::model_calls}, {"steps", &R::steps}, {"wall_seconds", &R::wall_seconds}},
    {{"trajectory", &R::trajectory}, {"model", &R::model}}};

// Calls `visit(key, member)` for every field, in line order.
template <typename Visit>
void ForEachField(const Visit& visit) {
  for (const auto& group : kFieldGroups) {
    for (const ResultField& f : group) std::visit([&](auto member) { visit(f.key, member); }, f.member);
  }
}

template <typename T>
Json ToJson(const T& value) {
  return Json(value);
}

Json ToJson(const std::optional<bool>& value) { return value ? Json(*value) : Json(); }

// `*out` from `key` when present and not null (a mistyped value throws);
// left as it is otherwise.
template <typename T>
void ReadKey(const Json& j, const char* key, T* out) {
  *out = Get<T>(j, key, *out);
}

// Only a boolean counts as test evidence; anything else leaves none.
void ReadKey(const Json& j, const char* key, std::optional<bool>* out) {
  if (auto t = j.find(key); t != j.end() && t->is_boolean()) *out = t->get<bool>();
}

Result<Json> ParseLine(std::string_view line) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(line, "eval log line"));
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseError("not a JSON object");
  return j;
}

Result<EvalHeader> DecodeHeader(const Json& j) {
  if (Get<std::string>(j, "format", "") != kEvalLogFormat) return ParseError("not a seragen eval log");
  if (Get<int>(j, "version", 0) != kEvalLogVersion) return FailedPreconditionError("eval log of another version");
  EvalHeader h;
  h.model = Get<std::string>(j, "model", "");
  h.label = Get<std::string>(j, "label", h.model);
  h.run_dir = Get<std::string>(j, "run_dir", "");
  h.verify_rule = Get<std::string>(j, "verify_rule", "sera");
  h.threshold = Get<double>(j, "threshold", 0.5);
  return h;
}

}  // namespace

std::string EvalLogPath(const std::string& eval_dir) { return eval_dir + "/results.jsonl"; }

std::string EvalTrajectoryRef(const std::string& task_id, int seed) {
  return "trajectories/" + task_id + ".s" + std::to_string(seed) + ".json";
}

std::string EncodeEvalHeader(const EvalHeader& h) {
  return detail::DumpLine(Json{{"format", kEvalLogFormat},
                               {"version", kEvalLogVersion},
                               {"model", h.model},
                               {"label", h.label},
                               {"run_dir", h.run_dir},
                               {"verify_rule", h.verify_rule},
                               {"threshold", h.threshold}});
}

std::string EncodeEvalResult(const EvalResult& r) {
  Json j = Json::object();
  ForEachField([&](const char* key, auto member) { j[key] = ToJson(r.*member); });
  if (r.tests) j["tests"] = Json::parse(journal::EncodeTestEvidence(*r.tests));
  return detail::DumpLine(j);
}

// task_id and seed are required; every other key falls back to EvalResult's default.
Result<EvalResult> DecodeEvalResult(std::string_view line) {
  SG_ASSIGN_OR_RETURN(Json j, ParseLine(line));
  try {
    EvalResult r;
    r.task_id = j.at("task_id").get<std::string>();
    r.seed = j.at("seed").get<int>();
    ForEachField([&](const char* key, auto member) { ReadKey(j, key, &(r.*member)); });
    if (const Json* tests = detail::Present(j, "tests")) {
      SG_ASSIGN_OR_RETURN(r.tests, journal::DecodeTestEvidence(detail::DumpLine(*tests)));
    }
    return r;
  } catch (const Json::exception& e) {
    return ParseError(std::string("eval result: ") + e.what());
  }
}

Result<LoadedEvalLog> ReadEvalLog(const std::string& eval_dir) {
  LoadedEvalLog log;
  const std::string path = EvalLogPath(eval_dir);
  int line_no = 0;
  Status s = ForEachLine(path, kMaxLogBytes, [&](const FileLine& line) -> Status {
    ++line_no;
    if (!line.terminated) {
      log.torn_tail = true;
      return Status::Ok();
    }
    auto where = [&] { return path + " line " + std::to_string(line_no) + ": "; };
    if (line_no == 1) {
      SG_ASSIGN_OR_RETURN(Json j, ParseLine(line.text));
      auto header = DecodeHeader(j);
      if (!header.ok()) return Status(header.status().code(), where() + header.status().message());
      log.header = std::move(*header);
      return Status::Ok();
    }
    auto r = DecodeEvalResult(line.text);
    if (!r.ok()) return DataLossError(where() + r.status().message());
    log.results.push_back(std::move(*r));
    return Status::Ok();
  });
  if (!s.ok() && s.code() == StatusCode::kNotFound) return LoadedEvalLog{};
  SG_RETURN_IF_ERROR(s);
  return log;
}

Result<EvalLog> EvalLog::Open(const std::string& eval_dir, const EvalHeader& header) {
  SG_RETURN_IF_ERROR(MakeDirs(eval_dir + "/trajectories"));
  SG_ASSIGN_OR_RETURN(LoadedEvalLog existing, ReadEvalLog(eval_dir));
  if (existing.header && (existing.header->model != header.model || existing.header->run_dir != header.run_dir)) {
    return FailedPreconditionError(eval_dir + " holds the evaluation of model '" + existing.header->model + "' on " +
                                   existing.header->run_dir + "; use another -o directory per model");
  }
  // The whole lines only (a torn tail is dropped), under the log's own header.
  std::string text = EncodeEvalHeader(existing.header ? *existing.header : header) + "\n";
  for (const EvalResult& r : existing.results) text += EncodeEvalResult(r) + "\n";
  EvalLog log(EvalLogPath(eval_dir), std::move(text));
  SG_RETURN_IF_ERROR(WriteFileAtomic(log.path_, log.text_));
  return log;
}

Status EvalLog::Append(const EvalResult& result) {
  std::lock_guard<std::mutex> lock(*mutex_);
  std::string next = text_ + EncodeEvalResult(result) + "\n";
  SG_RETURN_IF_ERROR(WriteFileAtomic(path_, next));
  text_ = std::move(next);
  return Status::Ok();
}

}  // namespace seragen::eval
