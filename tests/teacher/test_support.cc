#include "teacher/test_support.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <catch2/catch.hpp>

#include <cstdio>

#include "seragen/base/file_util.h"
#include "seragen/base/template.h"
#include "testing/source_paths.h"

namespace seragen::teacher::testing {

using nlohmann::json;

std::string PromptsDir() { return seragen::testing::SourcePath("prompts"); }

const PromptSet& Prompts() {
  static const PromptSet* set = [] {
    auto loaded = PromptSet::Load(PromptsDir());
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      std::abort();
    }
    return new PromptSet(std::move(*loaded));
  }();
  return *set;
}

std::string ReadPrompt(const std::string& file) {
  auto text = ReadFile(PromptsDir() + "/" + file);
  REQUIRE(text.ok());
  return *text;
}

json ToolsJson(const ToolRoles& roles) {
  json bash = {
      {"type", "function"},
      {"function",
       {{"name", roles.shell},
        {"description", "Run a shell command in the repository."},
        {"parameters",
         {{"type", "object"}, {"properties", {{"command", {{"type", "string"}}}}}, {"required", {"command"}}}}}}};
  json editor = {
      {"type", "function"},
      {"function",
       {{"name", roles.editor},
        {"description", "View and edit files."},
        {"parameters",
         {{"type", "object"},
          {"properties",
           {{"command", {{"type", "string"}, {"enum", {"view", "create", "str_replace", "insert", "undo_edit"}}}},
            {"path", {{"type", "string"}}},
            {"file_text", {{"type", "string"}}},
            {"old_str", {{"type", "string"}}},
            {"new_str", {{"type", "string"}}},
            {"insert_line", {{"type", "integer"}}},
            {"view_range", {{"type", "array"}, {"items", {{"type", "integer"}}}}}}},
          {"required", {"command", "path"}}}}}}};
  json submit = {{"type", "function"},
                 {"function",
                  {{"name", roles.submit},
                   {"description", "Submit the change."},
                   {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}};
  return json::array({bash, editor, submit});
}

std::map<std::string, std::string> FixtureRepo() {
  return {
      {"pkg/__init__.py", ""},
      {"pkg/config.py",
       "\"\"\"Configuration loading for the fixture app.\"\"\"\n"
       "import json\n"
       "\n"
       "\n"
       "def parse_config(text, defaults):\n"
       "    \"\"\"Parse JSON text and merge it over defaults.\"\"\"\n"
       "    data = json.loads(text)\n"
       "    merged = dict(defaults)\n"
       "    merged.update(data)\n"
       "    return merged\n"
       "\n"
       "\n"
       "def clamp(value, low, high):\n"
       "    if value < low:\n"
       "        return low\n"
       "    if value > high:\n"
       "        return high\n"
       "    return value\n"
       "\n"
       "\n"
       "def require_key(mapping, key):\n"
       "    if key not in mapping:\n"
       "        raise KeyError(\"missing key\")\n"
       "    return mapping[key]\n"
       "\n"
       "\n"
       "class Settings:\n"
       "    def __init__(self, values):\n"
       "        self.values = values\n"
       "\n"
       "    def get(self, name, default=None):\n"
       "        return self.values.get(name, default)\n"},
      {"pkg/app.py",
       "from pkg.config import parse_config, clamp\n"
       "\n"
       "\n"
       "def load(path):\n"
       "    with open(path) as handle:\n"
       "        return parse_config(handle.read(), {\"debug\": False})\n"
       "\n"
       "\n"
       "def volume(level):\n"
       "    return clamp(level, 0, 10)\n"},
      {"tests/test_config.py",
       "from pkg.config import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 10) == 5\n"},
  };
}

std::string Rollout1Prompt(const std::string& function, const std::string& file, int category_index,
                           const std::string& test_command) {
  const auto& cats = Prompts().categories();
  auto text = RenderTemplate(ReadPrompt("rollout1.md"),
                             {{"function_name", function},
                              {"file_path", file},
                              {"category_prompt", cats.at(static_cast<std::size_t>(category_index)).prompt},
                              {"repo_root", "/repo"},
                              {"test_command", test_command}},
                             "rollout1.md");
  REQUIRE(text.ok());
  return *text;
}

std::string Rollout2Prompt(const std::string& issue_text, const std::string& test_command) {
  auto text = RenderTemplate(ReadPrompt("rollout2.md"),
                             {{"issue_text", issue_text}, {"repo_root", "/repo"}, {"test_command", test_command}},
                             "rollout2.md");
  REQUIRE(text.ok());
  return *text;
}

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Numbered(const std::string& text, int from, int to) {
  std::vector<std::string> lines = Lines(text);
  std::string out;
  for (int n = std::max(1, from); n <= std::min<int>(to, static_cast<int>(lines.size())); ++n) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%6d\t", n);
    out += prefix + lines[static_cast<std::size_t>(n - 1)] + "\n";
  }
  return out;
}

int Count(const std::string& hay, const std::string& needle) {
  if (needle.empty()) return 0;
  int n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string Rel(std::string path) {
  if (path.rfind("/repo/", 0) == 0) path = path.substr(6);
  return path;
}

}  // namespace

std::string FakeTools::Run(const std::string& name, const std::string& arguments) {
  json args = json::parse(arguments, nullptr, false);
  if (args.is_discarded()) return "Error: the arguments are not valid JSON.";
  if (name == "submit") {
    ++submits_;
    return submits_ == 1 ? "Review the diff below, then call submit again to finish.\n\n" + Patch() : "Submitted.";
  }
  if (name == "bash") {
    std::string cmd = args.value("command", "");
    if (cmd.rfind("grep ", 0) == 0) {
      // Extract the searched word: the longest identifier in quotes.
      std::size_t q1 = cmd.find('"');
      std::size_t q2 = cmd.find('"', q1 + 1);
      std::string pattern = cmd.substr(q1 + 1, q2 - q1 - 1);
      std::string word;
      std::string current;
      for (char c : pattern + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
          current.push_back(c);
        } else {
          if (current.size() > word.size() && current != "function" && current != "def") word = current;
          current.clear();
        }
      }
      const bool definitions = cmd.find("-rnE") != std::string::npos;
      std::string out;
      for (const auto& [path, text] : files_) {
        std::vector<std::string> lines = Lines(text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
          if (lines[i].find(word) == std::string::npos) continue;
          if (definitions && lines[i].find("def " + word) == std::string::npos) continue;
          out += "/repo/" + path + ":" + std::to_string(i + 1) + ":" + lines[i] + "\n";
        }
      }
      return out;
    }
    if (cmd.rfind("find ", 0) == 0) {
      std::string out;
      for (const auto& [path, text] : files_) {
        if (path.size() > 3 && path.substr(path.size() - 3) == ".py" && path.find("test") == std::string::npos) {
          out += "/repo/" + path + "\n";
        }
      }
      return out;
    }
    if (cmd.find("py_compile") != std::string::npos) return "compiled-ok\n";
    if (cmd.rfind("python3 ", 0) == 0) {
      std::string script = Rel(cmd.substr(8));
      return files_.count(script) ? "ran " + script + "\n" : "python3: can't open file '/repo/" + script + "'\n";
    }
    if (cmd.rfind("rm ", 0) == 0) {
      return files_.erase(Rel(cmd.substr(3))) ? "" : "rm: cannot remove '" + cmd.substr(3) + "'\n";
    }
    if (cmd.rfind("cd /repo && ", 0) == 0) return "tests ran: " + cmd.substr(12) + "\n";
    return "";
  }
  if (name == "editor") {
    std::string command = args.value("command", "");
    std::string path = Rel(args.value("path", ""));
    if (command == "create") {
      if (files_.count(path)) return "Error: /repo/" + path + " already exists.";
      files_[path] = args.value("file_text", "");
      return "New file /repo/" + path + " written.";
    }
    auto it = files_.find(path);
    if (it == files_.end()) return "Error: the path /repo/" + path + " does not exist.";
    if (command == "view") {
      int from = 1;
      int to = 1 << 30;
      if (args.contains("view_range")) {
        from = args["view_range"][0].get<int>();
        to = args["view_range"][1].get<int>();
        if (to == -1) to = 1 << 30;
      }
      std::string shown = Numbered(it->second, from, to);
      if (shown.size() > view_max_chars) {  // cut at a line end, like the real editor
        shown = shown.substr(0, shown.rfind('\n', view_max_chars) + 1) + "[file clipped; use view_range]\n";
      }
      return "Contents of /repo/" + path + ":\n" + shown;
    }
    if (command == "str_replace") {
      EditRecord record{it->second, args.value("old_str", ""), args.value("new_str", ""), false};
      int n = Count(it->second, record.old_str);
      if (n != 1) {
        edits_.push_back(record);
        return n == 0 ? "No replacement was performed: old_str did not appear verbatim in /repo/" + path + "."
                      : "No replacement was performed: old_str occurs " + std::to_string(n) + " times.";
      }
      it->second.replace(it->second.find(record.old_str), record.old_str.size(), record.new_str);
      record.applied = true;
      edits_.push_back(record);
      return "The file /repo/" + path + " has been edited.";
    }
    return "Error: unsupported command " + command;
  }
  return "Error: unknown tool " + name;
}

std::string FakeTools::Patch() const {
  std::string out;
  for (const auto& [path, text] : files_) {
    auto original = original_.find(path);
    const std::string before = original == original_.end() ? "" : original->second;
    if (original != original_.end() && before == text) continue;
    out += "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n";
    std::vector<std::string> a = Lines(before);
    std::vector<std::string> b = Lines(text);
    // Common prefix/suffix, then the differing middle (enough for small edits).
    std::size_t p = 0;
    while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
    std::size_t s = 0;
    while (s < a.size() - p && s < b.size() - p && a[a.size() - 1 - s] == b[b.size() - 1 - s]) ++s;
    out += "@@ -" + std::to_string(p + 1) + " +" + std::to_string(p + 1) + " @@\n";
    for (std::size_t k = (p >= 3 ? p - 3 : 0); k < p; ++k) out += " " + a[k] + "\n";
    for (std::size_t k = p; k < a.size() - s; ++k) out += "-" + a[k] + "\n";
    for (std::size_t k = p; k < b.size() - s; ++k) out += "+" + b[k] + "\n";
  }
  return out;
}

ChatRequest MustParse(const json& request) {
  auto parsed = ParseChatRequest(request.dump());
  REQUIRE(parsed.ok());
  return *parsed;
}

PolicyContext DefaultContext(std::uint64_t seed) {
  PolicyContext ctx;
  ctx.seed = seed;
  ctx.prompts = &Prompts();
  return ctx;
}

RolloutRun DriveRollout(const std::string& instance_prompt, const PolicyContext& context, int max_turns,
                        std::map<std::string, std::string> files, std::size_t view_max_chars) {
  RolloutRun run;
  FakeTools tools(std::move(files));
  tools.view_max_chars = view_max_chars;
  run.messages = json::array(
      {{{"role", "system"}, {"content", ReadPrompt("system.md")}}, {{"role", "user"}, {"content", instance_prompt}}});
  for (int turn = 0; turn < max_turns; ++turn) {
    json request = {{"model", "m"}, {"messages", run.messages}, {"tools", ToolsJson(context.roles)}};
    PolicyReply reply = Decide(MustParse(request), context);
    run.replies.push_back(reply);
    if (reply.tool_calls.empty()) break;
    json calls = json::array();
    for (const ToolCallOut& c : reply.tool_calls) {
      calls.push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    }
    run.messages.push_back({{"role", "assistant"}, {"content", reply.content}, {"tool_calls", calls}});
    for (const ToolCallOut& c : reply.tool_calls) {
      std::string observation = tools.Run(c.name, c.arguments);
      run.messages.push_back({{"role", "tool"}, {"tool_call_id", c.id}, {"content", observation}});
    }
    if (tools.submits() >= 2) {
      run.submitted = true;
      break;
    }
  }
  run.patch = tools.Patch();
  // Keep the edit records reachable for tests through the messages: verify here.
  for (const FakeTools::EditRecord& e : tools.edits()) {
    int n = 0;
    for (std::size_t p = e.file_text_before.find(e.old_str); p != std::string::npos;
         p = e.file_text_before.find(e.old_str, p + 1)) {
      ++n;
    }
    CHECK(n == 1);  // old_str occurs exactly once in the file it viewed
    CHECK(e.applied);
  }
  return run;
}

HttpResult HttpCall(int port, const std::string& method, const std::string& target, const std::string& body,
                    int timeout_ms) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  namespace net = boost::asio;
  HttpResult result;
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  stream.expires_after(std::chrono::milliseconds(timeout_ms));
  stream.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)), ec);
  if (ec) {
    result.error = ec.message();
    return result;
  }
  http::request<http::string_body> req(method == "POST" ? http::verb::post : http::verb::get, target, 11);
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req, ec);
  if (ec) {
    result.error = ec.message();
    return result;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(1u << 30);
  // Read with the deadline: beast::tcp_stream's expiry applies to async ops, so run one.
  bool done = false;
  http::async_read(stream, buffer, parser, [&](beast::error_code e, std::size_t) {
    ec = e;
    done = true;
  });
  ioc.run();
  (void)done;
  if (parser.is_header_done()) {
    result.status = static_cast<int>(parser.get().result_int());
    for (const auto& field : parser.get()) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      result.headers[name] = std::string(field.value());
    }
    result.body = parser.get().body();
  }
  if (ec) {
    result.error = ec.message();
    if (!parser.is_done()) result.status = parser.is_header_done() ? -result.status : 0;
  }
  return result;
}

std::string LongConversationBody(int turns) {
  json messages = json::array({{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                               {{"role", "user"}, {"content", Rollout1Prompt("parse_config", "pkg/config.py", 0)}}});
  FakeTools tools(FixtureRepo());
  for (int t = 0; t < turns; ++t) {
    std::string id = "call_" + std::to_string(t);
    std::string args = t % 2 == 0 ? json{{"command", "view"}, {"path", "/repo/pkg/config.py"}}.dump()
                                  : json{{"command", "grep -rn \"parse_config\" /repo"}}.dump();
    std::string name = t % 2 == 0 ? "editor" : "bash";
    messages.push_back(
        {{"role", "assistant"},
         {"content", nullptr},
         {"tool_calls",
          json::array({{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}}})}});
    messages.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", tools.Run(name, args)}});
  }
  return json{{"model", "m"}, {"messages", messages}, {"tools", ToolsJson()}}.dump();
}

}  // namespace seragen::teacher::testing
