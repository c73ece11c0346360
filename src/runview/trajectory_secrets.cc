#include "seragen/runview/trajectory_secrets.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "seragen/base/json_depth.h"

namespace seragen::runview {
namespace {

// The texts of `traj` that leave as data, in a fixed order, with what each is.
struct FieldRefs {
  std::vector<std::string*> texts;
  std::vector<ScannedField> what;

  void Add(std::string* text, int message, const char* part) {
    texts.push_back(text);
    what.push_back({message, part});
  }
};

FieldRefs CollectFields(agent::Trajectory* traj) {
  FieldRefs refs;
  for (std::size_t i = 0; i < traj->history.size(); ++i) {
    llm::Message& m = traj->history[i];
    const int index = static_cast<int>(i);
    refs.Add(&m.content, index, "content");
    refs.Add(&m.reasoning, index, "reasoning");
    for (llm::ToolCall& call : m.tool_calls) {
      refs.Add(&call.arguments_json, index, "arguments");  // what object-carrying records hold
      // hf and openai rows carry the model's own text (llm::ModelArgumentsText),
      // which can hold what the parsed object lost (a repeated key's first value).
      if (call.arguments_raw != call.arguments_json) refs.Add(&call.arguments_raw, index, "arguments_raw");
    }
  }
  refs.Add(&traj->patch, -1, "patch");
  return refs;
}

// A placeholder holds no quote or backslash, so a redaction inside a JSON
// string keeps it valid; a secret that took JSON syntax with it does not.
bool ArgumentsStillValid(const agent::Trajectory& traj) {
  for (const llm::Message& m : traj.history) {
    for (const llm::ToolCall& call : m.tool_calls) {
      if (!call.arguments_valid) continue;  // records carry "{}" for these
      if (!CheckJsonDepth(call.arguments_json, "tool call arguments", kMaxToolArgumentsDepth).ok()) return false;
      auto parsed = nlohmann::json::parse(call.arguments_json, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_object()) return false;
    }
  }
  return true;
}

}  // namespace

TrajectoryScan ScanTrajectory(const secrets::SecretScanner& scanner, bool redact, agent::Trajectory* traj) {
  FieldRefs refs = CollectFields(traj);
  std::vector<std::string_view> views;
  views.reserve(refs.texts.size());
  for (const std::string* text : refs.texts) views.emplace_back(*text);
  TrajectoryScan out;
  out.scan = scanner.ScanRow(views);
  out.fields = std::move(refs.what);
  if (!redact || out.scan.clean()) return out;
  for (std::size_t i = 0; i < refs.texts.size() && i < out.scan.redacted.size(); ++i) {
    *refs.texts[i] = std::move(out.scan.redacted[i]);
  }
  out.scan.redacted.clear();
  for (llm::Message& m : traj->history) {
    for (llm::ToolCall& call : m.tool_calls) call.arguments_raw = call.arguments_json;  // no unredacted copy left
  }
  out.arguments_valid = ArgumentsStillValid(*traj);
  return out;
}

std::string SecretsReportLines(const TrajectoryScan& scan, const std::string& task_id, int rollout) {
  std::string out;
  for (const secrets::SecretHit& hit : scan.scan.hits) {
    const ScannedField* field = hit.field < scan.fields.size() ? &scan.fields[hit.field] : nullptr;
    nlohmann::ordered_json line = {
        {"task_id", task_id}, {"rollout", rollout},   {"message", nullptr}, {"part", field ? field->part : ""},
        {"rule", hit.rule},   {"family", hit.family}, {"hash8", hit.hash8}, {"context", hit.context}};
    if (field && field->message >= 0) line["message"] = field->message;
    out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace seragen::runview
