#include "publish/trajectory_secrets.h"

#include <deque>
#include <nlohmann/json.hpp>
#include <string_view>

#include "seragen/base/json_depth.h"
#include "seragen/base/json_strings.h"

namespace seragen::publish {
namespace {

// The texts of one scan, what each is, and where its redaction goes
// (nullptr: a decoded argument string, written back through its call).
struct Row {
  std::vector<std::string_view> views;
  std::vector<ScannedField> what;
  std::vector<std::string*> targets;
  std::deque<std::string> decoded;  // stable addresses for `views`

  void Add(std::string_view text, std::string* target, int message, std::string part) {
    views.push_back(text);
    what.push_back({message, std::move(part)});
    targets.push_back(target);
  }
};

// A call's arguments text (the parsed object's JSON, or the model's own text
// where it differs) read as the strings it decodes to: its string tokens and
// the row fields that hold them, from `first_field` on.
struct DecodedText {
  std::string* text = nullptr;
  int message = 0;
  std::vector<JsonStringToken> tokens;
  std::size_t first_field = 0;
};

void AddDecoded(std::string* text, int message, Row& row, std::vector<DecodedText>& decoded) {
  DecodedText d{text, message, JsonStringTokens(*text), row.views.size()};
  for (const JsonStringToken& t : d.tokens) {
    row.decoded.push_back(DecodeJsonString(std::string_view(*text).substr(t.begin, t.end - t.begin)));
    row.Add(row.decoded.back(), nullptr, message, "arguments");
  }
  decoded.push_back(std::move(d));
}

// A call's id, name and arguments. Invalid arguments (records carry "{}")
// are scanned as text in the second pass only.
void AddCall(llm::ToolCall& call, int message, Row& row, std::vector<DecodedText>& decoded) {
  row.Add(call.id, &call.id, message, "id");
  row.Add(call.name, &call.name, message, "name");
  if (!call.arguments_valid) return;
  AddDecoded(&call.arguments_json, message, row, decoded);
  if (call.arguments_raw != call.arguments_json) AddDecoded(&call.arguments_raw, message, row, decoded);
}

// Pass 1: every text that leaves as data, arguments as decoded strings.
Row FirstPassRow(agent::Trajectory* traj, std::span<const MetadataText> metadata, std::vector<DecodedText>& calls) {
  Row row;
  for (std::size_t i = 0; i < traj->history.size(); ++i) {
    llm::Message& m = traj->history[i];
    const int index = static_cast<int>(i);
    row.Add(m.content, &m.content, index, "content");
    row.Add(m.reasoning, &m.reasoning, index, "reasoning");
    row.Add(m.name, &m.name, index, "name");
    row.Add(m.tool_call_id, &m.tool_call_id, index, "tool_call_id");
    for (llm::ToolCall& call : m.tool_calls) AddCall(call, index, row, calls);
  }
  row.Add(traj->patch, &traj->patch, -1, "patch");
  for (const MetadataText& t : metadata) row.Add(*t.text, t.text, -1, "metadata." + t.name);
  return row;
}

// An arguments text with each decoded string the scan changed encoded again
// in its token's place; every other byte as it was.
std::string Rebuilt(const DecodedText& d, const Row& row, const secrets::RowScan& scan) {
  const std::string& text = *d.text;
  if (scan.clean()) return text;
  std::string out;
  std::size_t pos = 0;
  for (std::size_t k = 0; k < d.tokens.size(); ++k) {
    const std::size_t field = d.first_field + k;
    if (scan.redacted[field] == row.views[field]) continue;
    out.append(text, pos, d.tokens[k].begin - pos);
    out += EncodeJsonString(scan.redacted[field]);
    pos = d.tokens[k].end;
  }
  out.append(text, pos);
  return out;
}

void WriteBack(const Row& row, secrets::RowScan& scan) {
  if (scan.clean()) return;
  for (std::size_t i = 0; i < row.views.size(); ++i) {
    if (row.targets[i] != nullptr && scan.redacted[i] != row.views[i]) *row.targets[i] = std::move(scan.redacted[i]);
  }
}

secrets::RowScan Scan(const secrets::SecretScanner& scanner, const Row& row, const TrajectoryHitSink& sink) {
  secrets::HitSink each;
  if (sink) each = [&](const secrets::SecretHit& hit) { sink(hit, row.what[hit.field]); };
  return scanner.ScanRow(row.views, each);
}

// Counts and kept hits of `more` added to `into`; redacted texts dropped.
void Merge(secrets::RowScan& into, secrets::RowScan more) {
  into.hit_count += more.hit_count;
  for (const auto& [rule, n] : more.hits_by_rule) into.hits_by_rule[rule] += n;
  for (secrets::SecretHit& h : more.hits) {
    if (into.hits.size() < secrets::kMaxKeptHits) into.hits.push_back(std::move(h));
  }
  into.redacted.clear();
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

TrajectoryScan ScanTrajectory(const secrets::SecretScanner& scanner, bool redact, agent::Trajectory* traj,
                              std::span<const MetadataText> metadata, const TrajectoryHitSink& sink) {
  std::vector<llm::ToolCall*> mirrored;  // raw text = JSON text: redacted as one
  for (llm::Message& m : traj->history) {
    for (llm::ToolCall& call : m.tool_calls) {
      if (call.arguments_raw == call.arguments_json) mirrored.push_back(&call);
    }
  }
  std::vector<DecodedText> decoded;
  Row first = FirstPassRow(traj, metadata, decoded);
  TrajectoryScan out;
  out.scan = Scan(scanner, first, sink);
  // Pass 2: every arguments text as JSON, with pass 1's redactions in place
  // (so that only what pass 1 could not see is found again), and the raw
  // text of invalid arguments.
  std::vector<std::string> rebuilt;
  Row second;
  for (const DecodedText& d : decoded) rebuilt.push_back(Rebuilt(d, first, out.scan));
  for (std::size_t k = 0; k < decoded.size(); ++k)
    second.Add(rebuilt[k], decoded[k].text, decoded[k].message, "arguments");
  for (std::size_t i = 0; i < traj->history.size(); ++i) {
    for (llm::ToolCall& call : traj->history[i].tool_calls) {
      if (!call.arguments_valid) second.Add(call.arguments_raw, &call.arguments_raw, static_cast<int>(i), "arguments");
    }
  }
  secrets::RowScan again = Scan(scanner, second, sink);
  if (redact && !(out.scan.clean() && again.clean())) {
    WriteBack(first, out.scan);
    for (std::size_t k = 0; k < decoded.size(); ++k) *decoded[k].text = std::move(rebuilt[k]);
    for (std::size_t i = 0; i < second.views.size() && !again.clean(); ++i) {
      *second.targets[i] = std::move(again.redacted[i]);
    }
    for (llm::ToolCall* call : mirrored) call->arguments_raw = call->arguments_json;  // no unredacted copy left
    out.arguments_valid = ArgumentsStillValid(*traj);
  }
  Merge(out.scan, std::move(again));
  return out;
}

std::string SecretsReportLine(const secrets::SecretHit& hit, const ScannedField& field, const std::string& task_id,
                              int rollout) {
  nlohmann::ordered_json line = {{"task_id", task_id}, {"rollout", rollout},    {"message", nullptr},
                                 {"part", field.part}, {"rule", hit.rule},      {"family", hit.family},
                                 {"hash8", hit.hash8}, {"context", hit.context}};
  if (field.message >= 0) line["message"] = field.message;
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace seragen::publish
