#include "seragen/callgraph/plan.h"

#include <fmt/format.h>

#include <simdjson.h>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/rng.h"

namespace seragen::callgraph {

std::optional<CategoryMode> CategoryModeFromName(std::string_view name) {
  if (name == "all") return CategoryMode::kAll;
  if (name == "sample") return CategoryMode::kSample;
  return std::nullopt;
}

Status ValidatePlanOptions(const PlanOptions& options) {
  if (options.replicas < 1) {
    return InvalidArgumentError(fmt::format("plan.replicas must be >= 1, got {}", options.replicas));
  }
  if (options.category_count < 1) {
    return InvalidArgumentError(fmt::format("plan.category_count must be >= 1, got {}", options.category_count));
  }
  if (options.category_mode == CategoryMode::kSample &&
      (options.categories_per_function < 1 || options.categories_per_function > options.category_count)) {
    return InvalidArgumentError(fmt::format("plan.categories_per_function must be in [1, {}], got {}",
                                            options.category_count, options.categories_per_function));
  }
  return Status::Ok();
}

namespace {

// The (category, replica) pairs of one function, in task order.
std::vector<std::pair<int, int>> CategoryDraws(const PlanOptions& options, const std::string& key) {
  std::vector<std::pair<int, int>> draws;
  if (options.category_mode == CategoryMode::kAll) {
    for (int c = 0; c < options.category_count; ++c) {
      for (int replica = 0; replica < options.replicas; ++replica) draws.emplace_back(c, replica);
    }
    return draws;
  }
  const auto count = static_cast<std::size_t>(options.category_count);
  const std::size_t wanted =
      static_cast<std::size_t>(options.categories_per_function) * static_cast<std::size_t>(options.replicas);
  // One seeded draw without replacement; with replicas 1 this is the same
  // call as before replicas redrew, so such plans are unchanged.
  Rng rng = Rng::Derive(options.seed, key, "categories");
  std::vector<std::size_t> order = rng.SampleIndices(count, std::min(wanted, count));
  std::vector<int> uses(count, 0);
  for (std::size_t i = 0; i < wanted; ++i) {
    std::size_t c = order[i % order.size()];
    draws.emplace_back(static_cast<int>(c), uses[c]++);
  }
  return draws;
}

}  // namespace

std::map<std::string, std::size_t> PickedPerDirectory(const std::vector<PlannedTask>& tasks) {
  std::map<std::string, std::set<std::string>> functions;
  for (const PlannedTask& task : tasks) {
    std::size_t slash = task.file.rfind('/');
    std::string dir = slash == std::string::npos ? "." : task.file.substr(0, slash);
    functions[task.repo + "/" + dir].insert(task.function_id);
  }
  std::map<std::string, std::size_t> out;
  for (const auto& [dir, ids] : functions) out[dir] = ids.size();
  return out;
}

std::vector<PlannedTask> PlanTasks(const std::vector<RepoSelection>& repos, const PlanOptions& options) {
  std::vector<PlannedTask> tasks;
  for (const RepoSelection& selection : repos) {
    if (selection.graph == nullptr) continue;
    for (std::uint32_t index : selection.functions) {
      if (index >= selection.graph->nodes.size()) continue;
      const FunctionNode& node = selection.graph->nodes[index];
      for (auto [category, replica] : CategoryDraws(options, selection.repo + "\n" + node.id)) {
        PlannedTask task;
        std::string category_text = std::to_string(category);
        std::string replica_text = std::to_string(replica);
        task.task_id =
            ContentId({selection.repo, selection.commit, node.id, category_text, replica_text, options.recipe_hash});
        task.repo = selection.repo;
        task.commit = selection.commit;
        task.function_id = node.id;
        task.file = node.path;
        task.qualname = node.qualname;
        task.language = std::string(LanguageName(node.language));
        task.start_line = node.start_line;
        task.end_line = node.end_line;
        task.category = category;
        task.replica = replica;
        task.seed = Rng::Derive(options.seed, task.task_id, "task-seed").NextU64() >> 11;
        tasks.push_back(std::move(task));
      }
    }
  }
  Rng order = Rng::Derive(options.seed, "", "task-order");
  order.Shuffle(tasks);
  return tasks;
}

std::string WriteTasksJsonl(const std::vector<PlannedTask>& tasks) {
  nlohmann::json header = {{"format", kTasksFormat}, {"version", kTasksVersion}};
  std::string out = header.dump() + "\n";
  for (const PlannedTask& task : tasks) {
    nlohmann::json line = {
        {"task_id", task.task_id},   {"repo", task.repo},
        {"commit", task.commit},     {"function_id", task.function_id},
        {"file", task.file},         {"qualname", task.qualname},
        {"language", task.language}, {"start_line", task.start_line},
        {"end_line", task.end_line}, {"category", task.category},
        {"replica", task.replica},   {"seed", task.seed},
    };
    if (task.heldout) line["heldout"] = true;
    out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

namespace {

namespace dom = simdjson::dom;

// Reads the members of one parsed task line; the first missing or mistyped
// member is kept as the error (read them all, then check error()).
class TaskFields {
 public:
  explicit TaskFields(dom::object o) : o_(o) {}

  void Text(std::string_view name, std::string* out) {
    std::string_view v;
    if (Get(name).get_string().get(v) == simdjson::SUCCESS) out->assign(v);
    else Fail(name, "a string");
  }
  void Int(std::string_view name, int* out) {
    std::int64_t v = 0;
    if (Get(name).get_int64().get(v) == simdjson::SUCCESS && v >= INT32_MIN && v <= INT32_MAX)
      *out = static_cast<int>(v);
    else Fail(name, "an integer");
  }
  void Count(std::string_view name, std::uint64_t* out) {
    if (Get(name).get_uint64().get(*out) != simdjson::SUCCESS) Fail(name, "a non-negative integer");
  }
  const std::string& error() const { return error_; }

 private:
  simdjson::simdjson_result<dom::element> Get(std::string_view name) { return o_.at_key(name); }
  void Fail(std::string_view name, std::string_view want) {
    if (error_.empty()) error_ = fmt::format("field '{}' is missing or not {}", name, want);
  }

  dom::object o_;
  std::string error_;
};

// One task line of tasks.jsonl.
Result<PlannedTask> ParsePlannedTask(dom::object item) {
  PlannedTask task;
  TaskFields f(item);
  for (auto [name, text] :
       {std::pair{"task_id", &task.task_id}, std::pair{"repo", &task.repo}, std::pair{"commit", &task.commit},
        std::pair{"function_id", &task.function_id}, std::pair{"file", &task.file},
        std::pair{"qualname", &task.qualname}, std::pair{"language", &task.language}}) {
    f.Text(name, text);
  }
  for (auto [name, number] : {std::pair{"start_line", &task.start_line}, std::pair{"end_line", &task.end_line},
                              std::pair{"category", &task.category}, std::pair{"replica", &task.replica}}) {
    f.Int(name, number);
  }
  f.Count("seed", &task.seed);
  if (!f.error().empty()) return ParseError(f.error());
  if (dom::element held; item.at_key("heldout").get(held) == simdjson::SUCCESS) {
    if (held.get_bool().get(task.heldout) != simdjson::SUCCESS) return ParseError("field 'heldout' is not a boolean");
  }
  return task;
}

// Whether a parsed first line is the header (old plans start with a task),
// and an error for a header this reader does not know.
Result<bool> IsTasksHeader(dom::object item, std::string_view where) {
  dom::element format;
  if (item.at_key("format").get(format) != simdjson::SUCCESS) return false;
  std::string_view name;
  if (format.get_string().get(name) != simdjson::SUCCESS || name != kTasksFormat) {
    return ParseError(
        fmt::format("{}: not a seragen plan (format {}, expected {})", where, simdjson::minify(format), kTasksFormat));
  }
  dom::element version;
  std::int64_t number = 0;
  const bool has_version = item.at_key("version").get(version) == simdjson::SUCCESS;
  if (!has_version || version.get_int64().get(number) != simdjson::SUCCESS || number != kTasksVersion) {
    return FailedPreconditionError(fmt::format("{}: plan version {} is not the version {} this seragen reads", where,
                                               has_version ? simdjson::minify(version) : "(none)", kTasksVersion));
  }
  return true;
}

// The lines of tasks.jsonl, parsed with one parser (bounded nesting, UTF-8
// checked, error codes only: never throws).
class TaskLineParser {
 public:
  Status Init() {
    if (parser_.allocate(1 << 16, kMaxJsonDepth) != simdjson::SUCCESS) {
      return ResourceExhaustedError("cannot allocate the plan parser");
    }
    return Status::Ok();
  }

  // One line: its task, or nothing for the header (line 1 only). Errors
  // name `name` and the line.
  Result<std::optional<PlannedTask>> Parse(std::string_view line, int line_no, std::string_view name) {
    padded_.assign(line);
    padded_.append(simdjson::SIMDJSON_PADDING, '\0');
    auto where = [&] { return fmt::format("{} line {}", name, line_no); };
    dom::element doc;
    if (auto err = parser_.parse(padded_.data(), line.size(), false).get(doc); err != simdjson::SUCCESS) {
      SG_RETURN_IF_ERROR(CheckJsonDepth(line, where()));
      return ParseError(fmt::format("{}: {}", where(), simdjson::error_message(err)));
    }
    dom::object item;
    if (doc.get_object().get(item) != simdjson::SUCCESS)
      return ParseError(fmt::format("{}: not a JSON object", where()));
    if (line_no == 1) {
      SG_ASSIGN_OR_RETURN(bool header, IsTasksHeader(item, where()));
      if (header) return std::optional<PlannedTask>();
    }
    Result<PlannedTask> task = ParsePlannedTask(item);
    if (!task.ok()) return ParseError(fmt::format("{}: {}", where(), task.status().message()));
    return std::optional<PlannedTask>(std::move(*task));
  }

 private:
  dom::parser parser_;
  std::string padded_;
};

// The lines of a plan in order, into `tasks`.
class PlanReader {
 public:
  PlanReader(std::string_view name, std::vector<PlannedTask>* tasks) : name_(name), tasks_(tasks) {}
  Status Init() { return parser_.Init(); }

  Status Line(std::string_view line, bool terminated) {
    ++line_no_;
    if (!terminated) {
      return DataLossError(
          fmt::format("{} line {}: the plan ends inside this line (no newline after it): the file "
                      "was cut, so it is not the plan the run made",
                      name_, line_no_));
    }
    if (line.empty()) return Status::Ok();
    SG_ASSIGN_OR_RETURN(std::optional<PlannedTask> task, parser_.Parse(line, line_no_, name_));
    if (task) tasks_->push_back(std::move(*task));
    return Status::Ok();
  }

 private:
  std::string_view name_;
  std::vector<PlannedTask>* tasks_;
  TaskLineParser parser_;
  int line_no_ = 0;
};

}  // namespace

Result<std::vector<PlannedTask>> ReadTasksJsonl(std::string_view text, std::string_view name) {
  std::vector<PlannedTask> tasks;
  tasks.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  PlanReader reader(name, &tasks);
  SG_RETURN_IF_ERROR(reader.Init());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool terminated = end != std::string_view::npos;
    if (!terminated) end = text.size();
    SG_RETURN_IF_ERROR(reader.Line(text.substr(start, end - start), terminated));
    start = end + 1;
  }
  return tasks;
}

// Streamed (a plan of 100,000 tasks is ~30 MB of text): one pass counts the
// lines so the tasks are stored without regrowth, the next parses them.
Result<std::vector<PlannedTask>> ReadTasksFile(const std::string& path) {
  std::size_t lines = 0;
  SG_RETURN_IF_ERROR(ForEachLine(path, kMaxTasksFileBytes, [&lines](const FileLine&) {
    ++lines;
    return Status::Ok();
  }));
  std::vector<PlannedTask> tasks;
  tasks.reserve(lines);
  PlanReader reader(path, &tasks);
  SG_RETURN_IF_ERROR(reader.Init());
  SG_RETURN_IF_ERROR(ForEachLine(path, kMaxTasksFileBytes,
                                 [&reader](const FileLine& line) { return reader.Line(line.text, line.terminated); }));
  return tasks;
}

Status WriteTasksFile(const std::string& path, const std::vector<PlannedTask>& tasks) {
  return WriteFileAtomic(path, WriteTasksJsonl(tasks));
}

}  // namespace seragen::callgraph
