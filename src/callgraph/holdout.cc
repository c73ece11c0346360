#include "seragen/callgraph/holdout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "seragen/base/hash.h"
#include "seragen/base/rng.h"

namespace seragen::callgraph {

namespace {

std::string FunctionKey(std::string_view repo, std::string_view function_id) {
  return std::string(repo) + "\n" + std::string(function_id);
}

// Lines [start, end] (1-based) of `text`, each with its whitespace runs
// collapsed to one space and trimmed; blank lines dropped.
std::vector<std::string> NormalizedLines(std::string_view text, int start, int end) {
  std::vector<std::string> out;
  int line_no = 1;
  std::size_t pos = 0;
  while (pos <= text.size() && line_no <= end) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (line_no >= start) {
      std::string norm;
      for (char c : line) {
        const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
        if (space) {
          if (!norm.empty() && norm.back() != ' ') norm += ' ';
        } else {
          norm += c;
        }
      }
      if (!norm.empty() && norm.back() == ' ') norm.pop_back();
      if (!norm.empty()) out.push_back(std::move(norm));
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line_no;
  }
  return out;
}

// Union-find over group indices.
class Groups {
 public:
  std::size_t Add() {
    parent_.push_back(parent_.size());
    return parent_.size() - 1;
  }
  std::size_t Find(std::size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void Join(std::size_t a, std::size_t b) {
    a = Find(a), b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

// The functions a plan holds out for `holdout` out of `functions`.
std::size_t Target(double holdout, std::size_t functions) {
  if (holdout <= 0 || functions == 0) return 0;
  if (holdout >= 1) return std::min(functions, static_cast<std::size_t>(holdout));
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(holdout * static_cast<double>(functions))));
}

}  // namespace

void AddBodyKeys(const FileSource& source, std::string_view repo, const std::vector<PlannedTask>& tasks,
                 BodyKeys* keys) {
  std::map<std::string, std::vector<const PlannedTask*>> by_file;
  for (const PlannedTask& t : tasks) {
    if (t.repo == repo && !keys->count(FunctionKey(repo, t.function_id))) by_file[t.file].push_back(&t);
  }
  for (const auto& [file, functions] : by_file) {
    Result<std::string> text = source.Read(file);
    if (!text.ok()) continue;
    for (const PlannedTask* t : functions) {
      std::vector<std::string> body = NormalizedLines(*text, t->start_line + 1, t->end_line);
      if (static_cast<int>(body.size()) < kMinBodyLines) continue;
      std::string joined;
      for (const std::string& line : body) joined += line + "\n";
      (*keys)[FunctionKey(repo, t->function_id)] = StableHash64(joined);
    }
  }
}

HoldoutSplit MarkHoldout(std::vector<PlannedTask>* tasks, const HoldoutOptions& options, const BodyKeys& bodies) {
  // One group per file, joined through shared bodies.
  std::map<std::string, std::size_t> file_group;  // "repo\nfile" -> group
  std::map<std::uint64_t, std::size_t> body_group;
  std::map<std::string, std::size_t> functions;  // "repo\nfunction_id" -> group
  Groups groups;
  for (const PlannedTask& t : *tasks) {
    auto [it, added] = file_group.emplace(FunctionKey(t.repo, t.file), 0);
    if (added) it->second = groups.Add();
    std::string key = FunctionKey(t.repo, t.function_id);
    functions.emplace(key, it->second);
    if (auto body = bodies.find(key); body != bodies.end()) {
      auto [b, first] = body_group.emplace(body->second, it->second);
      if (!first) groups.Join(b->second, it->second);
    }
  }
  // Functions per root group, roots in the order of their first file's key.
  std::map<std::size_t, std::size_t> size;
  for (const auto& [key, group] : functions) size[groups.Find(group)]++;
  std::vector<std::size_t> order;
  for (const auto& [root, n] : size) order.push_back(root);
  Rng rng = Rng::Derive(options.seed, "", "eval-holdout");
  rng.Shuffle(order);
  const std::size_t target = Target(options.holdout, functions.size());
  std::set<std::size_t> held;
  std::size_t held_functions = 0;
  for (std::size_t i = 0; i + 1 < order.size() && held_functions < target; ++i) {
    held.insert(order[i]);
    held_functions += size[order[i]];
  }
  for (PlannedTask& t : *tasks) t.heldout = held.count(groups.Find(file_group[FunctionKey(t.repo, t.file)])) > 0;
  return SplitOf(*tasks);
}

HoldoutSplit SplitOf(const std::vector<PlannedTask>& tasks) {
  std::set<std::string> functions, held_functions, files, held_files;
  HoldoutSplit split;
  for (const PlannedTask& t : tasks) {
    functions.insert(FunctionKey(t.repo, t.function_id));
    files.insert(FunctionKey(t.repo, t.file));
    if (!t.heldout) continue;
    held_functions.insert(FunctionKey(t.repo, t.function_id));
    held_files.insert(FunctionKey(t.repo, t.file));
    ++split.heldout_tasks;
  }
  split.tasks = tasks.size();
  split.functions = functions.size();
  split.heldout_functions = held_functions.size();
  split.files = files.size();
  split.heldout_files = held_files.size();
  return split;
}

std::string FormatSplit(const HoldoutSplit& s) {
  return fmt::format("held out for eval: {} of {} functions ({} of {} files), {} of {} tasks", s.heldout_functions,
                     s.functions, s.heldout_files, s.files, s.heldout_tasks, s.tasks);
}

std::map<std::string, std::vector<std::string>> HeldOutFiles(const std::vector<PlannedTask>& tasks) {
  std::map<std::string, std::set<std::string>> files;
  for (const PlannedTask& t : tasks) {
    if (t.heldout) files[t.repo].insert(t.file);
  }
  std::map<std::string, std::vector<std::string>> out;
  for (auto& [repo, set] : files) out[repo].assign(set.begin(), set.end());
  return out;
}

}  // namespace seragen::callgraph
