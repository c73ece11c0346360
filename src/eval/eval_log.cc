#include "seragen/eval/eval_log.h"

#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"

namespace seragen::eval {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxLogBytes = 1ull << 30;

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

template <typename T>
T Get(const Json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
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
  return Dump(Json{{"format", kEvalLogFormat},
                   {"version", kEvalLogVersion},
                   {"model", h.model},
                   {"label", h.label},
                   {"run_dir", h.run_dir},
                   {"verify_rule", h.verify_rule},
                   {"threshold", h.threshold}});
}

std::string EncodeEvalResult(const EvalResult& r) {
  Json j = {{"task_id", r.task_id},
            {"instance_id", r.instance_id},
            {"seed", r.seed},
            {"exit", r.exit},
            {"submitted", r.submitted},
            {"autosubmitted", r.autosubmitted},
            {"scorable", r.scorable},
            {"recall", r.recall},
            {"precision", r.precision},
            {"f1", r.f1},
            {"resolved", r.resolved},
            {"tests_passed", r.tests_passed ? Json(*r.tests_passed) : Json()},
            {"prompt_tokens", r.prompt_tokens},
            {"completion_tokens", r.completion_tokens},
            {"model_calls", r.model_calls},
            {"steps", r.steps},
            {"wall_seconds", r.wall_seconds},
            {"trajectory", r.trajectory},
            {"model", r.model}};
  return Dump(j);
}

Result<EvalResult> DecodeEvalResult(std::string_view line) {
  SG_ASSIGN_OR_RETURN(Json j, ParseLine(line));
  try {
    EvalResult r;
    r.task_id = j.at("task_id").get<std::string>();
    r.seed = j.at("seed").get<int>();
    r.instance_id = Get<std::string>(j, "instance_id", "");
    r.exit = Get<std::string>(j, "exit", "");
    r.submitted = Get<bool>(j, "submitted", false);
    r.autosubmitted = Get<bool>(j, "autosubmitted", false);
    r.scorable = Get<bool>(j, "scorable", false);
    r.recall = Get<double>(j, "recall", 0);
    r.precision = Get<double>(j, "precision", 0);
    r.f1 = Get<double>(j, "f1", 0);
    r.resolved = Get<bool>(j, "resolved", false);
    if (auto t = j.find("tests_passed"); t != j.end() && t->is_boolean()) r.tests_passed = t->get<bool>();
    r.prompt_tokens = Get<std::int64_t>(j, "prompt_tokens", 0);
    r.completion_tokens = Get<std::int64_t>(j, "completion_tokens", 0);
    r.model_calls = Get<int>(j, "model_calls", 0);
    r.steps = Get<int>(j, "steps", 0);
    r.wall_seconds = Get<double>(j, "wall_seconds", 0);
    r.trajectory = Get<std::string>(j, "trajectory", "");
    r.model = Get<std::string>(j, "model", "");
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
  std::string next = text_ + EncodeEvalResult(result) + "\n";
  SG_RETURN_IF_ERROR(WriteFileAtomic(path_, next));
  text_ = std::move(next);
  return Status::Ok();
}

}  // namespace seragen::eval
