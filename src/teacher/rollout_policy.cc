// The scripted agent (a stand-in for a model): decides the next tool call of a
// rollout from the conversation so far. Steps: find the file, view it, search
// for the function's name, view the function, write and run a reproduction
// script (Python), edit, maybe check, run the script again, run the tests the
// prompt names, remove the script, submit, confirm.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/rng.h"
#include "seragen/base/strings.h"
#include "teacher/edit_transforms.h"
#include "teacher/policy.h"
#include "teacher/repro_script.h"
#include "text_facts.h"

namespace seragen::teacher {
namespace {

// Ordered: a call's arguments are written in the order a model writes them
// (command first, then path, ...), not sorted.
using json = nlohmann::ordered_json;

// Tool names offered in this request, by role ("" when the role is missing).
struct OfferedTools {
  std::string shell, editor, submit;
};

OfferedTools IdentifyTools(const ChatRequest& request, const ToolRoles& roles) {
  OfferedTools offered;
  for (const ToolSpecIn& t : request.tools) {
    if (t.name == roles.shell) offered.shell = t.name;
    if (t.name == roles.editor) offered.editor = t.name;
    if (t.name == roles.submit) offered.submit = t.name;
  }
  // Renamed tools: recognise them by their parameters.
  for (const ToolSpecIn& t : request.tools) {
    auto has = [&](const char* p) {
      return std::find(t.parameters.begin(), t.parameters.end(), p) != t.parameters.end();
    };
    bool edits =
        std::find(t.command_choices.begin(), t.command_choices.end(), "str_replace") != t.command_choices.end();
    if (offered.editor.empty() && (edits || (has("command") && has("path") && has("old_str")))) {
      offered.editor = t.name;
    } else if (offered.shell.empty() && has("command") && t.parameters.size() <= 2 && !has("path")) {
      offered.shell = t.name;
    } else if (offered.submit.empty() && t.parameters.empty()) {
      offered.submit = t.name;
    }
  }
  return offered;
}

struct PastCall {
  std::string name;
  json args;
  std::string observation;
};

std::vector<PastCall> PastCalls(const ChatRequest& request) {
  std::vector<PastCall> calls;
  const auto& msgs = request.messages;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].role != "assistant") continue;
    for (std::size_t c = 0; c < msgs[i].tool_calls.size(); ++c) {
      const ToolCallIn& tc = msgs[i].tool_calls[c];
      PastCall past;
      past.name = tc.name;
      past.args = CheckJsonDepth(tc.arguments, "arguments", kMaxToolArgumentsDepth).ok()
                      ? json::parse(tc.arguments, nullptr, false)
                      : json::object();
      if (past.args.is_discarded() || !past.args.is_object()) past.args = json::object();
      // The observation: the tool message answering this id, else the c-th
      // tool/user message after the assistant turn.
      bool found = false;
      for (std::size_t j = i + 1; j < msgs.size() && msgs[j].role != "assistant"; ++j) {
        if (!tc.id.empty() && msgs[j].tool_call_id == tc.id) {
          past.observation = msgs[j].content;
          found = true;
          break;
        }
      }
      if (!found) {
        std::size_t seen = 0;
        for (std::size_t j = i + 1; j < msgs.size() && msgs[j].role != "assistant"; ++j) {
          if (msgs[j].role == "tool" || msgs[j].role == "user") {
            if (seen++ == c) {
              past.observation = msgs[j].content;
              break;
            }
          }
        }
      }
      calls.push_back(std::move(past));
    }
  }
  return calls;
}

std::string Str(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string Extension(const std::string& path) {
  std::size_t dot = path.rfind('.');
  std::size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

bool EditFailed(const std::string& observation, const std::string& new_str) {
  const std::string o = AsciiLower(observation);
  static const char* kFailure[] = {"no replacement", "did not appear", "not found",      "no match",
                                   "multiple",       "occurrences",    "occurs",         "not unique",
                                   "failed",         "invalid",        "does not exist", "nothing was changed",
                                   "no change"};
  bool failure_words = false;
  for (const char* w : kFailure) failure_words = failure_words || o.find(w) != std::string::npos;
  if (!failure_words) return false;
  // A success message that echoes the new text is not a failure.
  std::size_t nl = new_str.find('\n');
  std::string first_new = new_str.substr(0, nl);
  return first_new.empty() || observation.find(first_new) == std::string::npos;
}

// What the conversation shows so far.
struct RolloutState {
  std::string repo_root = "/repo";
  std::string function;
  std::string rel_path;
  std::string issue_text;
  FileKnowledge file;
  bool listed = false;
  bool def_search_done = false;
  bool name_search_done = false;
  bool full_view_done = false;
  bool range_view_done = false;
  int views_after_failed_edit = 0;
  int edit_attempts = 0;
  bool edit_ok = false;
  bool check_done = false;
  int submits = 0;
  std::string last_edit_new;
  std::string name_search_output;
  std::string test_command;   // as the prompt states it ("" when it names none)
  std::string repro_rel;      // the reproduction script, relative to the root ("" until written)
  int repro_runs_before = 0;  // runs before the first edit attempt
  int repro_runs_after = 0;
  bool tests_done = false;
  bool repro_removed = false;
};

// Short name of a qualified one: "pkg.mod.Class.method" / "ns::f" -> "method" / "f".
std::string ShortName(std::string name) {
  std::size_t cut = name.find_last_of(".:");
  if (cut != std::string::npos) name = name.substr(cut + 1);
  return name;
}

// Line of the definition of `function` in `rel_path`, from grep output
// ("path:line:text"); 0 when not there (e.g. the search output was cut).
int DefinitionLineFromGrep(const std::string& output, const std::string& rel_path, const std::string& function) {
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    std::string line = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? output.size() : end + 1;
    std::size_t c1 = line.find(':');
    std::size_t c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    std::string path = line.substr(0, c1);
    if (path.size() < rel_path.size() || path.compare(path.size() - rel_path.size(), rel_path.size(), rel_path) != 0) {
      continue;
    }
    std::string text = line.substr(c2 + 1);
    bool definition = false;
    for (const char* kw : {"def ", "function ", "func ", "fn "}) {
      if (text.find(std::string(kw) + function) != std::string::npos) definition = true;
    }
    if (!definition) continue;
    try {
      return std::stoi(line.substr(c1 + 1, c2 - c1 - 1));
    } catch (...) {
      continue;
    }
  }
  return 0;
}

std::string AbsPath(const RolloutState& s, const std::string& rel) {
  if (!rel.empty() && rel[0] == '/') return rel;
  std::string root = s.repo_root;
  if (!root.empty() && root.back() == '/') root.pop_back();
  return root + "/" + rel;
}

std::string RelPath(const RolloutState& s, std::string path) {
  std::string root = s.repo_root;
  if (!root.empty() && root.back() != '/') root += '/';
  if (path.rfind(root, 0) == 0) path = path.substr(root.size());
  return path;
}

// First source file named in shell output ("path:line:text" from grep, or one path a line).
std::string FirstPathInOutput(const RolloutState& s, const std::string& output) {
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    std::string line = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? output.size() : end + 1;
    std::string path = line.substr(0, line.find(':'));
    while (!path.empty() && (path.back() == ' ' || path.back() == '\r')) path.pop_back();
    if (IsSourcePath(path) && path.find("test") == std::string::npos && path.find("__init__.py") == std::string::npos) {
      return RelPath(s, path);
    }
  }
  return {};
}

void ReplayHistory(const std::vector<PastCall>& calls, const OfferedTools& tools, RolloutState* s) {
  for (const PastCall& call : calls) {
    if (!tools.submit.empty() && call.name == tools.submit) {
      ++s->submits;
      continue;
    }
    if (!tools.shell.empty() && call.name == tools.shell) {
      const std::string cmd = Str(call.args, "command");
      if (!s->repro_rel.empty() && cmd == "python3 " + AbsPath(*s, s->repro_rel)) {
        ++(s->edit_attempts == 0 ? s->repro_runs_before : s->repro_runs_after);
      } else if (!s->repro_rel.empty() && cmd == "rm " + AbsPath(*s, s->repro_rel)) {
        s->repro_removed = true;
      } else if (!s->test_command.empty() && cmd.find(s->test_command) != std::string::npos) {
        s->tests_done = true;
      } else if (cmd.rfind("find ", 0) == 0 || cmd.rfind("ls ", 0) == 0) {
        s->listed = true;
        if (s->rel_path.empty()) s->rel_path = FirstPathInOutput(*s, call.observation);
      } else if (cmd.find("grep -rnE") != std::string::npos) {
        s->def_search_done = true;
        if (s->rel_path.empty()) s->rel_path = FirstPathInOutput(*s, call.observation);
      } else if (cmd.rfind("grep ", 0) == 0) {
        s->name_search_done = true;
        s->name_search_output = call.observation;
      } else if (s->edit_attempts > 0) {
        s->check_done = true;
      }
      continue;
    }
    if (!tools.editor.empty() && call.name == tools.editor) {
      const std::string command = Str(call.args, "command");
      const std::string path = Str(call.args, "path");
      if (command == "create" && IsReproScriptPath(RelPath(*s, path))) {
        if (s->repro_rel.empty()) s->repro_rel = RelPath(*s, path);
        continue;
      }
      if (command == "view" && !s->rel_path.empty() && RelPath(*s, path) == s->rel_path) {
        FileKnowledge fresh;
        ReadNumberedView(call.observation, &fresh);  // an empty file gives no lines
        if (call.args.contains("view_range")) {
          s->range_view_done = true;
        } else {
          s->full_view_done = true;
          s->file = FileKnowledge();  // a full view replaces what was known
          if (s->edit_attempts > 0 && !s->edit_ok) ++s->views_after_failed_edit;
        }
        for (int n = 1; n <= fresh.LastLine(); ++n) {
          if (const std::string* line = fresh.Line(n)) s->file.SetLine(n, *line);
        }
      } else if (command == "str_replace" || command == "insert" || command == "create") {
        ++s->edit_attempts;
        s->last_edit_new = Str(call.args, "new_str");
        s->edit_ok = !EditFailed(call.observation, s->last_edit_new);
      }
    }
  }
}

std::string ToolId(const std::string& conversation, int turn, int index) {
  return "call_" + Sha256Hex(conversation + ":" + std::to_string(turn) + ":" + std::to_string(index)).substr(0, 24);
}

// Picks one of `options` with the rng.
const char* Pick(Rng& rng, std::initializer_list<const char*> options) {
  std::size_t i = static_cast<std::size_t>(rng.Uniform(options.size()));
  return *(options.begin() + i);
}

std::string Fill(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + value.size())) {
    text.replace(p, key.size(), value);
  }
  return text;
}

std::vector<EditKind> KindOrder(const RequestInfo& info, const PolicyContext& ctx, const RolloutState& s,
                                const std::string& conv) {
  std::vector<EditKind> order;
  if (info.kind == RequestKind::kRollout2) {
    EditKind inferred = InferKindFromIssue(s.issue_text);
    Rng rng = Rng::Derive(ctx.seed, conv, "rollout2-same-edit");
    if (rng.Bernoulli(ctx.knobs.rollout2_same_edit_rate)) {
      order.push_back(inferred);
    } else {
      // A different edit: any other kind that applies, else the comment guard
      // (which always applies), never falling back to the inferred edit.
      std::vector<EditKind> others;
      for (EditKind k : AllEditKinds()) {
        if (k != inferred && k != EditKind::kCommentGuard) others.push_back(k);
      }
      rng.Shuffle(others);
      order = others;
      order.push_back(EditKind::kCommentGuard);
    }
  } else {
    std::string topic;
    if (info.category_index >= 0 && ctx.prompts != nullptr &&
        info.category_index < static_cast<int>(ctx.prompts->categories().size())) {
      topic = ctx.prompts->categories()[info.category_index].topic;
    }
    std::vector<EditKind> preferred = PreferredKindsForTopic(topic);
    Rng rng = Rng::Derive(ctx.seed, conv, "edit-kind");
    std::size_t rotate = static_cast<std::size_t>(rng.Uniform(preferred.size()));
    std::rotate(preferred.begin(), preferred.begin() + rotate, preferred.end());
    order = preferred;
  }
  for (EditKind k : AllEditKinds()) {
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  }
  return order;
}

// Reads the rollout so far from the request: target function and file from
// the prompt or issue, then what the earlier tool calls found.
RolloutState ReadRolloutState(const ChatRequest& request, const RequestInfo& info, const OfferedTools& tools) {
  RolloutState s;
  auto value = [&](const char* key) {
    auto it = info.values.find(key);
    return it == info.values.end() ? std::string() : it->second;
  };
  if (!value("repo_root").empty()) s.repo_root = value("repo_root");
  s.test_command = value("test_command");
  if (info.kind == RequestKind::kRollout1) {
    s.function = ShortName(value("function_name"));
    s.rel_path = RelPath(s, value("file_path"));
  } else if (info.kind == RequestKind::kRollout2) {
    s.issue_text = value("issue_text");
    TextTarget target = FindTargetInText(s.issue_text, s.repo_root);
    s.function = target.function;
    s.rel_path = target.path;
  }
  ReplayHistory(PastCalls(request), tools, &s);
  if (!s.file.empty() && (s.function.empty() || !LocateFunction(s.file, s.function, s.rel_path))) {
    // The issue's first guess is not defined in this file: take the first
    // name it mentions that is, else the file's first function.
    std::optional<std::string> pick;
    for (const std::string& name : FunctionCandidates(s.issue_text)) {
      if (LocateFunction(s.file, name, s.rel_path)) {
        pick = name;
        break;
      }
    }
    if (!pick && info.kind != RequestKind::kRollout1) pick = FirstFunctionName(s.file, s.rel_path);
    if (pick) s.function = *pick;
  }
  return s;
}

// One assistant turn of a rollout. Each step method either answers (fills
// reply_ and returns true) or leaves the turn to the next step.
class RolloutTurn {
 public:
  RolloutTurn(const ChatRequest& request, const RequestInfo& info, const PolicyContext& ctx)
      : info_(info),
        ctx_(ctx),
        turn_(AssistantTurns(request)),
        conv_(ConversationId(request)),
        talk_(Rng::Derive(ctx.seed, conv_ + ":" + std::to_string(turn_), "wording")),
        tools_(IdentifyTools(request, ctx.roles)),
        s_(ReadRolloutState(request, info, tools_)) {
    reply_.kind = info.kind;
    reply_.rollout_start = turn_ == 0;
  }

  PolicyReply Decide() {
    if (!ConfirmSubmit() && !GiveUp() && !FindFile() && !ReadFile() && !SearchAndFocus() && !Reproduce() && !Edit() &&
        !Check() && !RerunReproduction() && !RunTests() && !RemoveReproduction()) {
      // 11. Submit.
      Submit(FillNames(Pick(talk_, {"The change to `{f}` is in place. Submitting so I can review the diff.",
                                    "That should address the problem. Let me submit and look over the diff.",
                                    "Done with the edit in `{file}`; submitting."})));
    }
    return std::move(reply_);
  }

 private:
  void Call(const std::string& name, json args, std::string reasoning) {
    reply_.tool_calls.push_back(
        {ToolId(conv_, turn_, 0), name, args.dump(-1, ' ', false, json::error_handler_t::replace)});
    reply_.finish_reason = "tool_calls";
    reply_.reasoning = std::move(reasoning);
  }
  std::string FillNames(const char* text) const {
    return Fill(Fill(std::string(text), "{f}", s_.function.empty() ? "the function" : s_.function), "{file}",
                s_.rel_path.empty() ? "the file" : s_.rel_path);
  }
  void Submit(std::string reasoning) {
    if (tools_.submit.empty()) {
      reply_.content = "I have finished working on this task.";
      reply_.reasoning = std::move(reasoning);
      reply_.finish_reason = "stop";
      return;
    }
    Call(tools_.submit, json::object(), std::move(reasoning));
  }
  bool CanShell() const { return !tools_.shell.empty(); }
  std::string Abs() const { return AbsPath(s_, s_.rel_path); }

  // Submit review shown: confirm.
  bool ConfirmSubmit() {
    if (s_.submits < 1) return false;
    Submit(Pick(talk_, {"The diff shows only the change I intended, so I'll confirm the submission.",
                        "Reviewed the diff; it is what I meant to change. Submitting for real now.",
                        "That diff looks right. Confirming."}));
    return true;
  }

  // A deliberately weaker agent (rollout2_give_up_after_turns): rollout 2
  // stops at that turn and submits whatever the working copy holds.
  bool GiveUp() {
    const int after = ctx_.knobs.rollout2_give_up_after_turns;
    if (after <= 0 || info_.kind != RequestKind::kRollout2 || turn_ < after) return false;
    Submit(FillNames("I have not pinned down what is wrong with `{f}` yet, and I am out of ideas; submitting as is."));
    return true;
  }

  // 1. Find the file.
  bool FindFile() {
    if (!s_.rel_path.empty()) return false;
    if (CanShell() && !s_.function.empty() && !s_.def_search_done) {
      Call(tools_.shell,
           {{"command",
             "grep -rnE \"(def|function|func|fn) +" + s_.function + " *\\(\" " + s_.repo_root + " | head -20"}},
           FillNames(Pick(talk_, {"The issue mentions `{f}` but not where it lives. Let me find its definition.",
                                  "First I need to know which file defines `{f}`."})));
      return true;
    }
    if (CanShell() && !s_.listed) {
      Call(tools_.shell,
           {{"command", "find " + s_.repo_root +
                            " -name \"*.py\" -not -path \"*/.git/*\" -not -path \"*test*\" | sort | head -20"}},
           Pick(talk_, {"I don't have a concrete location yet, so let me look at the layout of the repository.",
                        "Let me get an overview of the source files first."}));
      return true;
    }
    Submit(
        FillNames("I could not locate the code the task refers to, so there is nothing I can change with confidence."));
    return true;
  }

  // 2. Read the file (again after a failed edit, once).
  bool ReadFile() {
    if (tools_.editor.empty()) {
      Submit("Without a file editing tool I cannot make the change here; submitting as is.");
      return true;
    }
    const bool reread = s_.edit_attempts > 0 && !s_.edit_ok && s_.views_after_failed_edit == 0 && s_.edit_attempts < 2;
    if (!s_.full_view_done || reread) {
      Call(tools_.editor, {{"command", "view"}, {"path", Abs()}},
           reread ? FillNames("The replacement did not apply. Let me re-read `{file}` to get the exact text.")
                  : FillNames(Pick(
                        talk_, {"The problem is reported around `{f}` in `{file}`. I'll start by reading that file.",
                                "Let me open `{file}` and see how `{f}` is written.",
                                "First step: read `{file}` to understand `{f}` and its surroundings."})));
      return true;
    }
    if (s_.function.empty()) {
      Submit(FillNames("`{file}` does not define any function I can work on; submitting without changes."));
      return true;
    }
    return false;
  }

  // 3. Search for the name across the repository; 4. look closely at the
  // function. When the whole-file view was cut short before it, the name
  // search tells where the definition starts.
  bool SearchAndFocus() {
    const std::string ext = Extension(s_.rel_path);
    if (CanShell() && !s_.name_search_done) {
      std::string include = ext.empty() ? "" : " --include=\"*" + ext + "\"";
      Call(tools_.shell, {{"command", "grep -rn \"" + s_.function + "\" " + s_.repo_root + include + " | head -30"}},
           FillNames(Pick(talk_, {"Now let me see where `{f}` is used, since the cause could also be in a caller.",
                                  "Searching for other references to `{f}` to understand how callers use it.",
                                  "Let me check who calls `{f}` and what they pass in."})));
      return true;
    }
    auto span = LocateFunction(s_.file, s_.function, s_.rel_path);
    if (!span && !s_.range_view_done && s_.edit_attempts == 0) {
      int line = DefinitionLineFromGrep(s_.name_search_output, s_.rel_path, s_.function);
      if (line > 0) {
        Call(
            tools_.editor, {{"command", "view"}, {"path", Abs()}, {"view_range", json::array({line, -1})}},
            FillNames("`{file}` is long and the first view stopped before `{f}`; let me read from its definition on."));
        return true;
      }
    }
    if (span && !s_.range_view_done && s_.edit_attempts == 0) {
      Call(tools_.editor,
           {{"command", "view"}, {"path", Abs()}, {"view_range", json::array({span->first_line, span->last_line})}},
           FillNames(Pick(talk_, {"Let me focus on the body of `{f}`.", "Looking at `{f}` more closely.",
                                  "Here is the part of `{file}` that matters; let me read `{f}` line by line."})));
      return true;
    }
    return false;
  }

  // 6. Edit.
  bool Edit() {
    if (!(s_.edit_attempts == 0 || (!s_.edit_ok && s_.edit_attempts < 2 && s_.views_after_failed_edit > 0))) {
      return false;
    }
    auto edit = MakeEdit(s_.file, s_.function, s_.rel_path, KindOrder(info_, ctx_, s_, conv_));
    if (edit) {
      if (ctx_.edits != nullptr && info_.kind == RequestKind::kRollout1) {
        ctx_.edits->Remember(edit->old_str, edit->new_str, s_.function);
      }
      Call(tools_.editor,
           {{"command", "str_replace"}, {"path", Abs()}, {"old_str", edit->old_str}, {"new_str", edit->new_str}},
           FillNames(Pick(talk_, {"I think the weak spot is here: I should ", "The safest improvement is to ",
                                  "After reading `{f}`, the fix I want is to "})) +
               edit->summary + ".");
      return true;
    }
    if (!RemoveReproduction()) {
      Submit(FillNames("I could not find a change in `{f}` that I am confident about, so I'll submit without edits."));
    }
    return true;
  }

  // 5. Reproduce (Python): write a script that imports the function's module
  // and calls it with the input the planned edit is about, then run it.
  bool Reproduce() {
    if (s_.edit_attempts > 0 || !CanShell() || tools_.editor.empty()) return false;
    if (s_.repro_rel.empty()) {
      auto planned = MakeEdit(s_.file, s_.function, s_.rel_path, KindOrder(info_, ctx_, s_, conv_));
      auto target = planned ? PythonReproTarget(s_.file, s_.function, s_.rel_path, planned) : std::nullopt;
      if (!target) return false;
      Call(tools_.editor,
           {{"command", "create"},
            {"path", AbsPath(s_, ReproScriptName(s_.function))},
            {"file_text", PythonReproScript(*target)}},
           FillNames(Pick(talk_, {"Before changing anything, a small script that imports `{f}` and calls it with the "
                                  "input I suspect, so I can see what happens.",
                                  "Let me write a reproduction script for `{f}` first.",
                                  "I want to see the behaviour for myself: a short script that calls `{f}`."})));
      return true;
    }
    if (s_.repro_runs_before > 0) return false;
    Call(tools_.shell, {{"command", "python3 " + AbsPath(s_, s_.repro_rel)}},
         Pick(talk_, {"Running the reproduction script.", "Let me run it and look at the output.",
                      "Now run the script to see the current behaviour."}));
    return true;
  }

  // 8. The reproduction script again, after a successful edit.
  bool RerunReproduction() {
    if (!s_.edit_ok || s_.repro_rel.empty() || s_.repro_removed || s_.repro_runs_after > 0 || !CanShell()) {
      return false;
    }
    Call(tools_.shell, {{"command", "python3 " + AbsPath(s_, s_.repro_rel)}},
         FillNames(Pick(talk_, {"Running the reproduction script again to see how `{f}` behaves now.",
                                "Let me rerun the script against the edited code.",
                                "Same script as before, now with the change in place."})));
    return true;
  }

  // 9. The repository's tests, when the prompt names the command.
  bool RunTests() {
    if (s_.test_command.empty() || !s_.edit_ok || s_.tests_done || !CanShell()) return false;
    Call(tools_.shell, {{"command", "cd " + s_.repo_root + " && " + s_.test_command}},
         Pick(talk_, {"Now the repository's own tests, to make sure nothing else broke.",
                      "Let me run the test suite the task mentions.", "Running the project's tests."}));
    return true;
  }

  // 10. The reproduction script does not belong in the change: remove it.
  bool RemoveReproduction() {
    if (s_.repro_rel.empty() || s_.repro_removed || !CanShell()) return false;
    Call(tools_.shell, {{"command", "rm " + AbsPath(s_, s_.repro_rel)}},
         Pick(talk_, {"The reproduction script was only for checking; removing it so the diff holds just the fix.",
                      "Cleaning up the reproduction script before I submit.",
                      "Deleting my scratch script so it does not end up in the change."}));
    return true;
  }

  // 7. Optional quick check.
  bool Check() {
    if (!(s_.edit_ok && CanShell() && !s_.check_done &&
          Rng::Derive(ctx_.seed, conv_, "check").Bernoulli(ctx_.knobs.check_command_rate))) {
      return false;
    }
    std::string cmd = Extension(s_.rel_path) == ".py" ? "python3 -m py_compile " + Abs() + " && echo compiled-ok"
                                                      : "cd " + s_.repo_root + " && git diff --stat";
    Call(tools_.shell, {{"command", cmd}},
         Pick(talk_, {"Let me make sure the file still parses after the edit.", "Quick sanity check of the change.",
                      "Before submitting, a fast check that nothing is broken syntactically."}));
    return true;
  }

  const RequestInfo& info_;
  const PolicyContext& ctx_;
  const int turn_;
  const std::string conv_;
  Rng talk_;
  const OfferedTools tools_;
  RolloutState s_;
  PolicyReply reply_;
};

}  // namespace

PolicyReply DecideRollout(const ChatRequest& request, const RequestInfo& info, const PolicyContext& ctx) {
  return RolloutTurn(request, info, ctx).Decide();
}

}  // namespace seragen::teacher
