// Tool-less requests: writing a synthetic issue from a rollout, judging a
// patch, and a plain answer for anything else.
#include <algorithm>

#include "seragen/base/hash.h"
#include "seragen/base/rng.h"
#include "teacher/policy.h"
#include "text_facts.h"

namespace seragen::teacher {
namespace {

std::string Value(const RequestInfo& info, const char* key) {
  auto it = info.values.find(key);
  return it == info.values.end() ? std::string() : it->second;
}

std::string Fill(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + value.size())) {
    text.replace(p, key.size(), value);
  }
  return text;
}

const char* Pick(Rng& rng, std::initializer_list<const char*> options) {
  return *(options.begin() + static_cast<std::size_t>(rng.Uniform(options.size())));
}

enum class IssueStyle { kHeadings, kBoldLabels, kTerse, kNarrative };

IssueStyle StyleOf(const std::string& demo) {
  if (demo.find("## ") != std::string::npos) return IssueStyle::kHeadings;
  if (demo.find("**") != std::string::npos) return IssueStyle::kBoldLabels;
  if (demo.size() < 400) return IssueStyle::kTerse;
  return IssueStyle::kNarrative;
}

// Whether the demonstration holds code (a fenced block or an interactive
// prompt): the issue writer may add a reproduction only then.
bool DemoHasCode(const std::string& demo) {
  return demo.find("```") != std::string::npos || demo.find(">>> ") != std::string::npos;
}

std::string ModuleOf(const std::string& path) {
  if (path.size() < 4 || path.substr(path.size() - 3) != ".py") return {};
  std::string m = path.substr(0, path.size() - 3);
  std::replace(m.begin(), m.end(), '/', '.');
  if (m.size() > 9 && m.substr(m.size() - 9) == ".__init__") m = m.substr(0, m.size() - 9);
  return m;
}

// Python that imports `function` from `module` and calls it with
// `rest` (the arguments, the closing parenthesis and a comment); "" when
// either name is unknown.
std::string CallSnippet(const std::string& module, const std::string& function, const std::string& rest) {
  if (module.empty() || function.empty()) return {};
  return "from " + module + " import " + function + "\n\n" + function + "(" + rest;
}

struct IssueParts {
  std::string title, what, expected, actual;
  std::string snippet;  // a short reproduction, may be empty
};

IssueParts Compose(const PatchFacts& facts, Rng& rng) {
  const std::string f = facts.function.empty() ? "the function" : facts.function;
  const std::string call = facts.function.empty() ? "it" : "`" + facts.function + "()`";
  const std::string where = facts.path.empty() ? "" : " (in `" + facts.path + "`)";
  std::string subject = facts.subject;
  IssueParts p;
  const std::string module = ModuleOf(facts.path);
  switch (facts.kind) {
    case EditKind::kGuardNone: {
      if (subject.empty()) subject = "its argument";
      p.title = Fill(
          Pick(rng, {"{call} fails with an unhelpful error when `{p}` is None",
                     "Passing None as `{p}` to {call} crashes deep inside", "{call} does not handle a missing `{p}`"}),
          "{p}", subject);
      p.what = Pick(rng, {"I called {call}{where} with `{p}=None`, which happens in our code when the value is "
                          "missing from the input.",
                          "Our service sometimes has no value for `{p}` and passes None to {call}{where}."});
      p.actual = Pick(rng, {"It fails somewhere further down with an AttributeError/TypeError that mentions nothing "
                            "about `{p}`, so it took a while to trace back to the call.",
                            "The traceback ends several frames below {call}, with an error about an attribute of "
                            "NoneType, and it is not obvious that `{p}` was the problem."});
      p.expected = "A clear error right away that says `{p}` is required (or a documented way to pass no value).";
      p.snippet = CallSnippet(module, facts.function, subject + "=None)  # error comes from deep inside");
      break;
    }
    case EditKind::kEmptyCheck: {
      if (subject.empty()) subject = "the input";
      p.title = Fill(Pick(rng, {"{call} misbehaves when `{p}` is empty", "Empty `{p}` is not handled by {call}"}),
                     "{p}", subject);
      p.what =
          "Calling {call}{where} with an empty `{p}` (an empty string or collection) is accepted without "
          "complaint.";
      p.actual = Pick(rng, {"The result is wrong in a confusing way later on, instead of an error at the call.",
                            "It either returns something meaningless or fails much later with an IndexError."});
      p.expected = "Either a clear error saying `{p}` must not be empty, or documented behaviour for empty input.";
      p.snippet = CallSnippet(module, facts.function, subject + "=[])  # no error here; the problem shows up later");
      break;
    }
    case EditKind::kBoundary: {
      p.title = Pick(rng, {"{call} gives the wrong answer at the boundary", "Off-by-one in {call} for the limit case",
                           "{call} treats a value exactly at the limit incorrectly"});
      p.what =
          "When the input sits exactly at the limit that {call}{where} checks, the result is different from "
          "what the documentation and the neighbouring values suggest.";
      p.actual = "Values just inside the range work, but the value exactly at the edge takes the other branch.";
      p.expected = "The limit case should be handled consistently with the rest of the range.";
      break;
    }
    case EditKind::kErrorMessage: {
      std::string msg = subject.empty() ? "invalid value" : subject;
      p.title = Pick(rng, {"Error message from {call} does not say which value was wrong",
                           "Unhelpful error message when {call} rejects its input"});
      p.what = "When {call}{where} rejects its input, the error message only says \"" + msg + "\".";
      p.actual = "It does not say which value caused it, so with many inputs it is hard to find the bad one.";
      p.expected = "The message should include the offending value.";
      break;
    }
    case EditKind::kCommentGuard: {
      p.title = Pick(rng, {"Unclear what {call} expects from its input", "{call} relies on an unstated assumption"});
      p.what =
          "Reading {call}{where}, it is not clear what inputs it accepts, and unusual values give confusing "
          "results.";
      p.actual = "There is nothing in the code that tells a caller what is allowed, so mistakes are easy.";
      p.expected = "The expectations of {call} should be explicit where the input is used.";
      break;
    }
  }
  for (std::string* s : {&p.title, &p.what, &p.actual, &p.expected}) {
    *s = Fill(Fill(Fill(*s, "{call}", call), "{where}", where), "{p}", subject);
  }
  (void)f;
  return p;
}

std::string Render(const IssueParts& p, IssueStyle style) {
  std::string snippet = p.snippet.empty() ? "" : "```python\n" + p.snippet + "\n```\n";
  switch (style) {
    case IssueStyle::kHeadings:
      return p.title + "\n\n### Describe the bug\n\n" + p.what + "\n\n" +
             (snippet.empty() ? "" : "### To reproduce\n\n" + snippet + "\n") + "### Expected behavior\n\n" +
             p.expected + "\n\n### Actual behavior\n\n" + p.actual;
    case IssueStyle::kBoldLabels:
      return "**Summary**\n" + p.title + "\n\n**What happens**\n" + p.what + " " + p.actual + "\n\n" +
             (snippet.empty() ? "" : "**Reproduce**\n" + snippet + "\n") + "**What I expected**\n" + p.expected;
    case IssueStyle::kTerse:
      return p.title + "\n\n" + p.what + " " + p.actual + (snippet.empty() ? "" : "\n\n" + snippet);
    case IssueStyle::kNarrative:
      return p.what + " " + p.actual + "\n\n" + (snippet.empty() ? "" : snippet + "\n") + p.expected +
             " Is this expected?";
  }
  return p.title;
}

}  // namespace

PolicyReply WriteIssue(const ChatRequest& request, const RequestInfo& info, const PolicyContext& ctx) {
  PolicyReply reply;
  reply.kind = info.kind;
  Rng rng = Rng::Derive(ctx.seed, ConversationId(request), "issue");
  PatchFacts facts = AnalyzePatch(Value(info, "patch"), Value(info, "trajectory_summary"));
  // The task's function, when rollout 1's edit is known and the diff's context shows no definition.
  if (ctx.edits != nullptr && !facts.function_from_diff) {
    if (std::string f = ctx.edits->FunctionOf(facts.added); !f.empty()) facts.function = f;
  }
  IssueParts parts = Compose(facts, rng);
  const std::string demo = Value(info, "demo_issue");
  if (!DemoHasCode(demo)) parts.snippet.clear();  // no code unless the demonstration has some
  std::string body = Render(parts, StyleOf(demo));
  std::string tag =
      ctx.prompts != nullptr && !ctx.prompts->issue_tag().empty() ? ctx.prompts->issue_tag() : ctx.fallback_issue_tag;
  reply.reasoning = "The change is a " + std::string(EditKindName(facts.kind)) + " edit" +
                    (facts.function.empty() ? "" : " in " + facts.function) +
                    ". A user would notice the symptom, not the code, so I describe what they saw.";
  reply.content = "<" + tag + ">\n" + body + "\n</" + tag + ">";
  reply.finish_reason = "stop";
  return reply;
}

PolicyReply JudgePatch(const ChatRequest& request, const RequestInfo& info, const PolicyContext& ctx) {
  PolicyReply reply;
  reply.kind = info.kind;
  PatchFacts facts = AnalyzePatch(Value(info, "patch"), "");
  bool yes =
      !facts.empty && Rng::Derive(ctx.seed, ConversationId(request), "judge").Bernoulli(ctx.knobs.judge_yes_rate);
  std::string tag =
      ctx.prompts != nullptr && !ctx.prompts->judge_tag().empty() ? ctx.prompts->judge_tag() : ctx.fallback_judge_tag;
  reply.reasoning = facts.empty ? "The change is empty, so it cannot address the problem."
                                : (yes ? "The change edits the code the problem statement points at."
                                       : "The change does not clearly relate to the stated problem.");
  reply.content = "<" + tag + ">" + (yes ? "yes" : "no") + "</" + tag + ">";
  reply.finish_reason = "stop";
  return reply;
}

std::string ConversationId(const ChatRequest& request) {
  Sha256 h;
  int users = 0;
  for (const MessageIn& m : request.messages) {
    if (m.role == "system" || m.role == "developer") {
      h.UpdateField(m.role);
      h.UpdateField(m.content);
    } else if (m.role == "user" && users++ == 0) {
      h.UpdateField(m.role);
      h.UpdateField(m.content);
      break;
    } else {
      break;
    }
  }
  return h.FinalHex().substr(0, 32);
}

int AssistantTurns(const ChatRequest& request) {
  return static_cast<int>(std::count_if(request.messages.begin(), request.messages.end(),
                                        [](const MessageIn& m) { return m.role == "assistant"; }));
}

PolicyReply Decide(const ChatRequest& request, const PolicyContext& ctx) {
  RequestInfo info = ctx.prompts->Classify(request);
  switch (info.kind) {
    case RequestKind::kRollout1:
    case RequestKind::kRollout2:
    case RequestKind::kUnknownAgent: return DecideRollout(request, info, ctx);
    case RequestKind::kIssueWriter: return WriteIssue(request, info, ctx);
    case RequestKind::kJudge: return JudgePatch(request, info, ctx);
    case RequestKind::kUnknownChat: break;
  }
  PolicyReply reply;
  reply.kind = RequestKind::kUnknownChat;
  reply.content =
      "This endpoint is seragen's scripted teacher, a deterministic stand-in for a model. It answers agent "
      "rollouts, issue-writing and judge requests built from seragen's prompt files.";
  reply.finish_reason = "stop";
  return reply;
}

}  // namespace seragen::teacher
