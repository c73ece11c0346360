#include "seragen/agent/turn_replay.h"

#include <array>
#include <cstdio>
#include <utility>

#include "seragen/base/hash.h"

namespace seragen::agent {
namespace {

constexpr std::array<std::pair<ToolOutcome::Kind, std::string_view>, 4> kKindNames{{
    {ToolOutcome::Kind::kObservation, "observation"},
    {ToolOutcome::Kind::kInvalidCall, "invalid_call"},
    {ToolOutcome::Kind::kHarnessError, "harness_error"},
    {ToolOutcome::Kind::kPatchTooLarge, "patch_too_large"},
}};

void Optional(Sha256& h, const std::optional<double>& v) {
  if (!v) return h.UpdateField("0");
  char buf[40];
  std::snprintf(buf, sizeof buf, "1%.17g", *v);
  h.UpdateField(buf);
}

template <typename T>
void Optional(Sha256& h, const std::optional<T>& v) {
  h.UpdateField(v ? "1" + std::to_string(*v) : std::string("0"));
}

void Call(Sha256& h, const llm::ToolCall& c) {
  h.UpdateField(c.id);
  h.UpdateField(c.name);
  h.UpdateField(c.arguments_raw);
}

}  // namespace

std::string_view ToolOutcomeKindName(ToolOutcome::Kind kind) {
  for (const auto& [k, n] : kKindNames) {
    if (k == kind) return n;
  }
  return "unknown";
}

std::optional<ToolOutcome::Kind> ParseToolOutcomeKind(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string RequestDigest(const llm::ChatRequest& r) {
  // Every field length-prefixed, in a fixed order; counts before lists.
  Sha256 h;
  h.UpdateField("seragen-request-digest-1");
  h.UpdateField(r.model);
  Optional(h, r.sampling.temperature);
  Optional(h, r.sampling.top_p);
  Optional(h, r.sampling.presence_penalty);
  Optional(h, r.sampling.frequency_penalty);
  Optional(h, r.max_tokens);
  Optional(h, r.seed);
  h.UpdateField(r.parallel_tool_calls ? (*r.parallel_tool_calls ? "1" : "0") : "-");
  h.UpdateField(std::to_string(static_cast<int>(r.tool_choice.mode)));
  h.UpdateField(r.tool_choice.name);
  h.UpdateField(r.extra_body_json);
  h.UpdateField(std::to_string(r.stop.size()));
  for (const auto& s : r.stop) h.UpdateField(s);
  h.UpdateField(std::to_string(r.tools.size()));
  for (const auto& t : r.tools) {
    h.UpdateField(t.name);
    h.UpdateField(t.description);
    h.UpdateField(t.parameters_json);
  }
  h.UpdateField(std::to_string(r.messages.size()));
  for (const auto& m : r.messages) {
    h.UpdateField(llm::RoleName(m.role));
    h.UpdateField(m.content);
    h.UpdateField(m.reasoning);
    h.UpdateField(std::to_string(m.tool_calls.size()));
    for (const auto& c : m.tool_calls) Call(h, c);
    h.UpdateField(m.tool_call_id);
    h.UpdateField(m.name);
  }
  return h.FinalHex();
}

}  // namespace seragen::agent
