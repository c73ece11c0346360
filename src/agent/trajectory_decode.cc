// Reading trajectory files and turn-log responses (trajectory_json.h) with
// simdjson's DOM parser: a report or an export reads hundreds of thousands of
// them. simdjson stays in this file. Total: the parser validates UTF-8 and
// bounds nesting (max_depth) before any field is read, the field accessors
// return error codes (no simdjson exception is ever thrown), and an
// allocation failure is caught at the boundary.
#include <fmt/format.h>
#include <simdjson.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "seragen/agent/trajectory_json.h"
#include "seragen/base/base64.h"
#include "seragen/base/json_depth.h"

namespace seragen::agent {
namespace {

namespace dom = simdjson::dom;

bool Convert(dom::element e, std::string* out) {
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return false;
  out->assign(v);
  return true;
}

bool Convert(dom::element e, bool* out) { return e.get_bool().get(*out) == simdjson::SUCCESS; }

bool Convert(dom::element e, double* out) { return e.get_double().get(*out) == simdjson::SUCCESS; }

bool Convert(dom::element e, std::int64_t* out) { return e.get_int64().get(*out) == simdjson::SUCCESS; }

bool Convert(dom::element e, int* out) {
  std::int64_t v = 0;
  if (!Convert(e, &v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(v);
  return true;
}

template <typename T>
bool Convert(dom::element e, std::optional<T>* out) {
  T v{};
  if (!Convert(e, &v)) return false;
  *out = v;
  return true;
}

// The fields of one JSON object. The first problem is kept in *error (as
// "'<field>' <what is wrong>"); every later read is then a no-op, so a
// decoder reads on and checks once at the end.
class Fields {
 public:
  Fields(dom::element e, std::string_view what, std::string* error) : error_(error) {
    if (ok() && e.get_object().get(object_) != simdjson::SUCCESS) *error_ = fmt::format("{} is not an object", what);
  }
  bool ok() const { return error_->empty(); }

  // Missing: `*out` stays as it is when `required` is false, else an error.
  // Present with another type: an error either way.
  template <typename T>
  void Get(std::string_view key, T* out, bool required = true) {
    dom::element v;
    if (!Find(key, &v, required)) return;
    if (!Convert(v, out)) *error_ = fmt::format("'{}' has the wrong type", key);
  }
  void Opt(std::string_view key, std::string* out) { Get(key, out, false); }

  // Calls each(element) for every element of the array `key`; each returns
  // false after setting the error.
  template <typename Each>
  void Array(std::string_view key, Each&& each, bool required = true) {
    dom::element v;
    dom::array a;
    if (!Find(key, &v, required)) return;
    if (v.get_array().get(a) != simdjson::SUCCESS) {
      *error_ = fmt::format("'{}' is not an array", key);
      return;
    }
    for (dom::element e : a) {
      if (!ok() || !each(e)) return;
    }
  }

  // The member `key` (false when missing or after an error; missing and
  // required is an error).
  bool Find(std::string_view key, dom::element* v, bool required = true) {
    if (!ok()) return false;
    auto err = object_.at_key(key).get(*v);
    if (err == simdjson::SUCCESS) return true;
    if (required) *error_ = fmt::format("'{}' is missing", key);
    return false;
  }
  std::string* error() { return error_; }

 private:
  dom::object object_;
  std::string* error_;
};

template <typename Enum, std::size_t N>
Enum Named(std::string_view name, const Enum (&all)[N], std::string_view (*name_of)(Enum)) {
  for (Enum e : all) {
    if (name_of(e) == name) return e;
  }
  return all[0];
}

bool ReadToolCall(dom::element e, llm::ToolCall* c, std::string* error) {
  Fields f(e, "a tool call", error);
  f.Get("id", &c->id);
  f.Get("name", &c->name);
  f.Get("arguments_raw", &c->arguments_raw);
  f.Get("arguments_valid", &c->arguments_valid);
  f.Get("arguments_json", &c->arguments_json);
  f.Opt("arguments_error", &c->arguments_error);
  return f.ok();
}

void ReadToolCalls(Fields& f, std::vector<llm::ToolCall>* out, bool required) {
  f.Array(
      "tool_calls", [&](dom::element e) { return ReadToolCall(e, &out->emplace_back(), f.error()); }, required);
}

bool ReadRole(const std::string& name, llm::Role* role) {
  for (llm::Role r : {llm::Role::kSystem, llm::Role::kAssistant, llm::Role::kTool, llm::Role::kUser}) {
    if (llm::RoleName(r) == name) {
      *role = r;
      return true;
    }
  }
  return false;
}

bool ReadMessage(dom::element e, llm::Message* m, std::string* error) {
  Fields f(e, "a message", error);
  std::string role;
  f.Get("role", &role);
  if (f.ok() && !ReadRole(role, &m->role)) *error = fmt::format("unknown role '{}'", role);
  f.Get("content", &m->content);
  f.Opt("reasoning", &m->reasoning);
  ReadToolCalls(f, &m->tool_calls, false);
  f.Opt("tool_call_id", &m->tool_call_id);
  f.Opt("name", &m->name);
  return f.ok();
}

void ReadUsage(dom::element e, llm::Usage* u, std::string* error) {
  Fields f(e, "usage", error);
  f.Get("present", &u->present);
  f.Get("prompt_tokens", &u->prompt_tokens);
  f.Get("completion_tokens", &u->completion_tokens);
  f.Get("total_tokens", &u->total_tokens);
  f.Get("cached_prompt_tokens", &u->cached_prompt_tokens, false);
  f.Get("reasoning_tokens", &u->reasoning_tokens, false);
}

bool ReadResponse(dom::element e, llm::ChatResponse* r, std::string* error) {
  static constexpr llm::ReasoningSource kSources[] = {
      llm::ReasoningSource::kNone, llm::ReasoningSource::kReasoningField, llm::ReasoningSource::kReasoningContentField,
      llm::ReasoningSource::kThinkTag};
  static constexpr llm::ToolIssue kIssues[] = {llm::ToolIssue::kNone, llm::ToolIssue::kToolFormat,
                                               llm::ToolIssue::kToolArgs, llm::ToolIssue::kTooLarge};
  Fields f(e, "a response", error);
  std::string source, issue;
  f.Get("id", &r->id);
  f.Get("model", &r->model);
  f.Get("content", &r->content);
  f.Get("content_was_null", &r->content_was_null);
  f.Get("reasoning", &r->reasoning);
  f.Get("reasoning_source", &source);
  ReadToolCalls(f, &r->tool_calls, true);
  f.Get("finish_reason", &r->finish_reason);
  if (dom::element usage; f.Find("usage", &usage)) ReadUsage(usage, &r->usage, error);
  f.Get("endpoint", &r->endpoint);
  f.Get("attempts", &r->timings.attempts);
  f.Get("raw_body", &r->raw_body);
  f.Get("tool_issue", &issue);
  f.Get("tool_issue_detail", &r->tool_issue_detail);
  r->reasoning_source = Named(source, kSources, llm::ReasoningSourceName);
  r->tool_issue = Named(issue, kIssues, llm::ToolIssueName);
  return f.ok();
}

bool ReadTurn(dom::element e, TurnRecord* turn, std::string* error) {
  Fields f(e, "a turn", error);
  f.Get("step", &turn->step);
  f.Get("accepted", &turn->accepted);
  f.Get("llm_seconds", &turn->llm_seconds);
  f.Get("tool_seconds", &turn->tool_seconds);
  f.Opt("format_error", &turn->format_error);
  f.Opt("format_error_message", &turn->format_error_message);
  f.Opt("failure", &turn->failure);
  f.Opt("failure_class", &turn->failure_class);
  if (dom::element r; f.Find("response", &r, false)) ReadResponse(r, &turn->response, error);
  f.Opt("observation", &turn->observation);
  f.Get("command_timed_out", &turn->command_timed_out, false);
  // An exit code that is not an integer is no exit code (as files have always been read).
  if (dom::element code; f.Find("command_exit_code", &code, false)) Convert(code, &turn->command_exit_code);
  f.Get("replayed", &turn->replayed, false);
  f.Get("replay_observation_differs", &turn->replay_observation_differs, false);
  f.Opt("replay_observation", &turn->replay_observation);
  return f.ok();
}

// A tool's parameter schema: a string as is, any other value as compact JSON
// text in the form the trajectory writer produces (the order of the tools file).
bool ReadToolSpec(dom::element e, llm::ToolSpec* s, std::string* error) {
  Fields f(e, "a tool", error);
  f.Get("name", &s->name);
  f.Get("description", &s->description);
  dom::element p;
  if (!f.Find("parameters", &p)) return false;
  if (p.is_string()) return Convert(p, &s->parameters_json);
  s->parameters_json = nlohmann::ordered_json::parse(simdjson::minify(p)).dump();
  return true;
}

void ReadTotals(dom::element e, Totals* t, std::string* error) {
  Fields f(e, "totals", error);
  f.Get("prompt_tokens", &t->prompt_tokens);
  f.Get("completion_tokens", &t->completion_tokens);
  f.Get("cached_prompt_tokens", &t->cached_prompt_tokens);
  f.Get("cost_usd", &t->cost_usd);
  f.Get("model_calls", &t->model_calls);
  f.Get("replayed_calls", &t->replayed_calls, false);
  f.Get("steps", &t->steps);
  f.Get("format_errors", &t->format_errors);
  f.Get("wall_seconds", &t->wall_seconds);
  f.Get("command_seconds", &t->command_seconds, false);
}

Status CheckHeader(Fields& f) {
  std::string format;
  std::int64_t version = 0;
  f.Get("format", &format, false);
  if (f.ok() && format != "seragen-trajectory") return ParseError("not a seragen trajectory");
  f.Get("version", &version, false);
  if (f.ok() && version != kTrajectoryFormatVersion) {
    return ParseError(
        fmt::format("trajectory format version {} is not supported (expected {})", version, kTrajectoryFormatVersion));
  }
  return Status::Ok();
}

void ReadBody(Fields& f, Trajectory* t) {
  std::string* error = f.error();
  f.Get("task_id", &t->task_id);
  f.Get("rollout", &t->rollout);
  f.Get("model", &t->model);
  f.Get("prompts_hash", &t->prompts_hash);
  f.Array("tools", [&](dom::element e) { return ReadToolSpec(e, &t->tools.emplace_back(), error); });
  f.Array("history", [&](dom::element e) { return ReadMessage(e, &t->history.emplace_back(), error); });
  f.Array("turns", [&](dom::element e) { return ReadTurn(e, &t->turns.emplace_back(), error); });
  std::string exit_status;
  f.Get("exit_status", &exit_status);
  if (!f.ok()) return;
  if (auto status = ParseExitStatus(exit_status)) {
    t->exit_status = *status;
  } else {
    *error = fmt::format("unknown exit_status '{}'", exit_status);
  }
  f.Get("exit_detail", &t->exit_detail);
  f.Get("patch", &t->patch);
  if (dom::element b64; f.Find("patch_base64", &b64, false)) {
    std::string text;
    auto bytes = Convert(b64, &text) ? Base64Decode(text) : std::nullopt;
    if (bytes) t->patch = std::move(*bytes);
    else *error = "patch_base64 is not base64";
  }
  f.Get("has_patch", &t->has_patch);
  f.Opt("patch_error", &t->patch_error);
  f.Get("autosubmitted", &t->autosubmitted, false);
  if (dom::element totals; f.Find("totals", &totals)) ReadTotals(totals, &t->totals, error);
  f.Get("started_at", &t->started_at);
  f.Get("finished_at", &t->finished_at);
}

// Parses `text` into `doc` with the nesting bound; the error names `what`.
Status Parse(dom::parser& parser, const std::string& text, std::string_view what, dom::element* doc) {
  if (parser.allocate(text.size(), kMaxJsonDepth) != simdjson::SUCCESS) {
    return ParseError(fmt::format("{}: no memory to parse {} bytes", what, text.size()));
  }
  auto err = parser.parse(text).get(*doc);
  if (err == simdjson::DEPTH_ERROR)
    return ParseError(fmt::format("{} nests deeper than {} levels", what, kMaxJsonDepth));
  if (err != simdjson::SUCCESS) return ParseError(fmt::format("invalid {}: {}", what, simdjson::error_message(err)));
  return Status::Ok();
}

}  // namespace

Result<llm::ChatResponse> ResponseFromJson(const std::string& text) {
  try {
    dom::parser parser;
    dom::element doc;
    SG_RETURN_IF_ERROR(Parse(parser, text, "model response", &doc));
    llm::ChatResponse r;
    std::string error;
    if (!ReadResponse(doc, &r, &error)) return ParseError("invalid model response: " + error);
    return r;
  } catch (const std::exception& e) {
    return ParseError(std::string("invalid model response: ") + e.what());
  }
}

Result<Trajectory> TrajectoryFromJson(const std::string& text) {
  try {
    dom::parser parser;
    dom::element doc;
    SG_RETURN_IF_ERROR(Parse(parser, text, "trajectory file", &doc));
    std::string error;
    Fields f(doc, "the trajectory", &error);
    SG_RETURN_IF_ERROR(CheckHeader(f));
    Trajectory t;
    ReadBody(f, &t);
    if (!error.empty()) return ParseError("invalid trajectory: " + error);
    return t;
  } catch (const std::exception& e) {
    return ParseError(std::string("invalid trajectory: ") + e.what());
  }
}

}  // namespace seragen::agent
