#include "seragen/verify/test_report.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "seragen/base/json_depth.h"
#include "seragen/base/json_strings.h"
#include "seragen/base/strings.h"
#include "seragen/base/utf8.h"

namespace seragen::verify {
namespace {

// Where the evidence run's JUnit report and pytest's own output go (the
// sandbox's /tmp, outside the working copy).
constexpr const char* kJUnitPath = "/tmp/seragen-evidence.xml";
constexpr const char* kJUnitLog = "/tmp/seragen-evidence.log";
// Lines of go test -json longer than this are skipped (an event is short;
// its Output field holds one line of test output).
constexpr std::size_t kMaxJsonLineBytes = 1 << 20;
constexpr std::size_t kMaxTapDepth = 64;

// Adds `id` (clipped, repaired) with `outcome`. `repeat`: a second test of
// the same id is another test ("id #2"); otherwise it replaces the first.
void Add(TestOutcomes& out, std::string_view raw_id, TestOutcome outcome, bool repeat) {
  std::string id = RepairUtf8(raw_id.substr(0, Utf8SafePrefixLength(raw_id, kMaxTestIdBytes)));
  if (repeat && out.tests.contains(id)) {
    const std::string base = id;
    for (int n = 2; out.tests.contains(id); ++n) {
      if (n > 1000) return;  // a report naming one test a thousand times: the rest is noise
      id = base + " #" + std::to_string(n);
    }
  }
  auto it = out.tests.find(id);
  if (it != out.tests.end()) {
    it->second = outcome;
    return;
  }
  if (out.tests.size() >= kMaxTests) {
    out.truncated = true;
    return;
  }
  out.tests.emplace(std::move(id), outcome);
}

void AppendCodePoint(std::string& out, std::uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  AppendUtf8(out, cp);
}

// A numeric character reference's value ("#65", "#x41"); nullopt when malformed.
std::optional<std::uint32_t> CharRef(std::string_view ref) {
  if (ref.size() < 2 || ref.size() > 10 || ref[0] != '#') return std::nullopt;
  const bool hex = ref[1] == 'x' || ref[1] == 'X';
  std::string_view digits = ref.substr(hex ? 2 : 1);
  if (digits.empty()) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : digits) {
    int d = c >= '0' && c <= '9'          ? c - '0'
            : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
            : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
    if (d < 0) return std::nullopt;
    value = value * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
    if (value > 0x10FFFF) return 0xFFFD;
  }
  return value;
}

// XML attribute text with its entity and character references decoded
// (unknown references are kept as written).
std::string DecodeXmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t semi = text[i] == '&' ? text.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 12) {
      out += text[i];
      continue;
    }
    std::string_view ref = text.substr(i + 1, semi - i - 1);
    static constexpr std::array<std::pair<std::string_view, char>, 5> kNamed{
        {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}}};
    bool done = false;
    for (const auto& [name, c] : kNamed) {
      if (ref == name) {
        out += c;
        done = true;
      }
    }
    if (!done) {
      std::optional<std::uint32_t> cp = CharRef(ref);
      if (!cp) {
        out += text[i];
        continue;
      }
      AppendCodePoint(out, *cp);
    }
    i = semi;
  }
  return out;
}

// The value of attribute `name` in a start tag's attribute text ("" when absent).
std::string Attribute(std::string_view attrs, std::string_view name) {
  std::size_t i = 0;
  while (i < attrs.size()) {
    while (i < attrs.size() && (IsAsciiSpace(attrs[i]) || attrs[i] == '/')) ++i;
    std::size_t key_start = i;
    while (i < attrs.size() && attrs[i] != '=' && !IsAsciiSpace(attrs[i]) && attrs[i] != '/') ++i;
    std::string_view key = attrs.substr(key_start, i - key_start);
    while (i < attrs.size() && IsAsciiSpace(attrs[i])) ++i;
    if (i >= attrs.size() || attrs[i] != '=') {
      if (i == key_start) ++i;  // a stray character: step over it
      continue;
    }
    ++i;
    while (i < attrs.size() && IsAsciiSpace(attrs[i])) ++i;
    if (i >= attrs.size()) break;
    const char quote = attrs[i];
    std::size_t end;
    std::size_t value_start;
    if (quote == '"' || quote == '\'') {
      value_start = i + 1;
      end = attrs.find(quote, value_start);
      if (end == std::string_view::npos) end = attrs.size();
    } else {
      value_start = i;
      end = value_start;
      while (end < attrs.size() && !IsAsciiSpace(attrs[end])) ++end;
    }
    if (key == name) return DecodeXmlText(attrs.substr(value_start, end - value_start));
    i = end + 1;
  }
  return "";
}

// The end of the tag starting at `lt` (the index of its '>', quotes
// respected), or npos when the document ends first.
std::size_t TagEnd(std::string_view xml, std::size_t lt) {
  char quote = 0;
  for (std::size_t i = lt + 1; i < xml.size(); ++i) {
    const char c = xml[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Skips a comment, CDATA section or processing instruction starting at `lt`:
// the index after it, or nullopt when `lt` starts none of them.
std::optional<std::size_t> SkipSpecial(std::string_view xml, std::size_t lt) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSpecial{
      {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}, {"<!", ">"}}};
  for (const auto& [open, close] : kSpecial) {
    if (xml.substr(lt, open.size()) != open) continue;
    std::size_t end = xml.find(close, lt + open.size());
    return end == std::string_view::npos ? xml.size() : end + close.size();
  }
  return std::nullopt;
}

struct OpenCase {
  std::string id;
  TestOutcome outcome = TestOutcome::kPass;
};

void JUnitElement(TestOutcomes& out, std::optional<OpenCase>& open, std::string_view name, std::string_view attrs,
                  bool self_closing) {
  if (name == "testcase") {
    if (open) Add(out, open->id, open->outcome, true);
    const std::string cls = Attribute(attrs, "classname");
    const std::string test = Attribute(attrs, "name");
    open = OpenCase{cls.empty() ? test : cls + "::" + test};
    if (self_closing) {
      Add(out, open->id, open->outcome, true);
      open.reset();
    }
  } else if (name == "/testcase") {
    if (open) Add(out, open->id, open->outcome, true);
    open.reset();
  } else if (open && (name == "failure" || name == "error")) {
    open->outcome = TestOutcome::kFail;
  } else if (open && name == "skipped" && open->outcome != TestOutcome::kFail) {  // not an outcome: a JUnit tag
    open->outcome = TestOutcome::kSkip;
  }
}

// The TAP directive of a test point's description ("# SKIP ...", "# TODO"):
// the description without it, and whether it skips the test.
std::pair<std::string_view, bool> SplitDirective(std::string_view text) {
  for (std::size_t i = text.find('#'); i != std::string_view::npos; i = text.find('#', i + 1)) {
    if (i > 0 && text[i - 1] == '\\') continue;  // node escapes '#' in names
    std::string lower = AsciiLower(TrimAsciiSpace(text.substr(i + 1)).substr(0, 4));
    return {TrimAsciiSpace(text.substr(0, i)), lower == "skip" || lower == "todo"};
  }
  return {TrimAsciiSpace(text), false};
}

// A TAP test point ("ok 3 - name # SKIP"): its name and outcome, or nullopt.
std::optional<std::pair<std::string_view, TestOutcome>> TestPoint(std::string_view line) {
  bool ok = true;
  if (line.starts_with("not ok")) {
    ok = false;
    line.remove_prefix(6);
  } else if (line.starts_with("ok")) {
    line.remove_prefix(2);
  } else {
    return std::nullopt;
  }
  if (!line.empty() && line[0] != ' ') return std::nullopt;
  line = TrimAsciiSpace(line);
  while (!line.empty() && line[0] >= '0' && line[0] <= '9') line.remove_prefix(1);
  line = TrimAsciiSpace(line);
  if (line.starts_with("- ")) line.remove_prefix(2);
  auto [name, skipped] = SplitDirective(line);
  return std::pair{name, skipped ? TestOutcome::kSkip : ok ? TestOutcome::kPass : TestOutcome::kFail};
}

// Where `phrase` starts in `command` as words of their own (not inside
// "cargo test" for "go test"); npos when nowhere.
std::size_t FindWords(std::string_view command, std::string_view phrase) {
  for (std::size_t at = command.find(phrase); at != std::string_view::npos; at = command.find(phrase, at + 1)) {
    const std::size_t end = at + phrase.size();
    const bool starts = at == 0 || !(IsAsciiIdentChar(command[at - 1]) || command[at - 1] == '-');
    const bool ends = end == command.size() || !(IsAsciiIdentChar(command[end]) || command[end] == '-');
    if (starts && ends) return at;
  }
  return std::string_view::npos;
}

}  // namespace

TestFormat FormatForCommand(std::string_view command) {
  if (FindWords(command, "pytest") != std::string_view::npos) return TestFormat::kJUnitXml;
  if (FindWords(command, "go test") != std::string_view::npos) return TestFormat::kGoJson;
  for (std::string_view node : {"node --test", "npm test", "npm run test", "npm t"}) {
    if (FindWords(command, node) != std::string_view::npos) return TestFormat::kTap;
  }
  return TestFormat::kExitStatus;
}

std::string EvidenceCommand(TestFormat format, const std::string& test_command) {
  switch (format) {
    case TestFormat::kJUnitXml:
      return "rm -f " + std::string(kJUnitPath) + "; { " + test_command + " --junitxml=" + kJUnitPath + "; } >" +
             kJUnitLog + " 2>&1; status=$?; if [ -s " + kJUnitPath + " ]; then cat " + kJUnitPath +
             "; else tail -c 4000 " + kJUnitLog + "; fi; exit $status";
    case TestFormat::kGoJson: {
      std::string command = test_command;
      if (std::size_t at = FindWords(command, "go test"); at != std::string::npos) command.insert(at + 7, " -json");
      return command;
    }
    case TestFormat::kTap:
      return "export NODE_OPTIONS=\"${NODE_OPTIONS:+$NODE_OPTIONS }--test-reporter=tap\"; " + test_command;
    case TestFormat::kExitStatus: break;
  }
  return test_command;
}

TestOutcomes ParseJUnitXml(std::string_view xml) {
  TestOutcomes out;
  std::optional<OpenCase> open;
  for (std::size_t lt = xml.find('<'); lt != std::string_view::npos; lt = xml.find('<', lt)) {
    if (std::optional<std::size_t> next = SkipSpecial(xml, lt)) {
      lt = *next;
      continue;
    }
    const std::size_t gt = TagEnd(xml, lt);
    if (gt == std::string_view::npos) break;
    std::string_view tag = xml.substr(lt + 1, gt - lt - 1);
    std::size_t name_end = 0;
    while (name_end < tag.size() && !IsAsciiSpace(tag[name_end]) && tag[name_end] != '/') ++name_end;
    if (name_end == 0 && !tag.empty() && tag[0] == '/') {  // an end tag: "/name"
      name_end = 1;
      while (name_end < tag.size() && !IsAsciiSpace(tag[name_end])) ++name_end;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    JUnitElement(out, open, tag.substr(0, name_end), tag.substr(name_end), self_closing);
    lt = gt + 1;
  }
  if (open) Add(out, open->id, open->outcome, true);  // a report cut short: what it says so far
  return out;
}

TestOutcomes ParseGoTestJson(std::string_view text) {
  TestOutcomes out;
  for (std::string_view rest = text; !rest.empty();) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = TrimAsciiSpace(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.empty() || line[0] != '{' || line.size() > kMaxJsonLineBytes) continue;
    if (!CheckJsonDepth(line, "go test event").ok()) continue;
    nlohmann::json event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object()) continue;
    auto text_of = [&](const char* key) -> std::string {
      auto it = event.find(key);
      return it != event.end() && it->is_string() ? it->get<std::string>() : "";
    };
    const std::string action = text_of("Action");
    const std::string package = text_of("Package");
    const std::string test = text_of("Test");
    std::optional<TestOutcome> outcome = action == "pass"   ? std::optional(TestOutcome::kPass)
                                         : action == "fail" ? std::optional(TestOutcome::kFail)
                                         : action == "skip" ? std::optional(TestOutcome::kSkip)
                                                            : std::nullopt;
    if (!outcome || (package.empty() && test.empty())) continue;
    Add(out, test.empty() ? package : package + "::" + test, *outcome, false);
  }
  return out;
}

TestOutcomes ParseTap(std::string_view text) {
  TestOutcomes out;
  std::vector<std::string> subtests;  // names of the enclosing subtests, by level
  bool in_yaml = false;
  std::size_t yaml_indent = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    std::string_view body = TrimRight(line.substr(indent), " \t\r");
    if (in_yaml) {
      in_yaml = !(body == "..." && indent <= yaml_indent);
      continue;
    }
    if (body == "---") {
      in_yaml = true;
      yaml_indent = indent;
      continue;
    }
    const std::size_t level = std::min(indent / 4, kMaxTapDepth);
    if (body.starts_with("# Subtest:")) {
      subtests.resize(level);
      subtests.emplace_back(TrimAsciiSpace(body.substr(10)).substr(0, kMaxTestIdBytes));
      continue;
    }
    std::optional<std::pair<std::string_view, TestOutcome>> point = TestPoint(body);
    if (!point) continue;
    std::string id;
    for (std::size_t i = 0; i < level && i < subtests.size() && id.size() < kMaxTestIdBytes; ++i) {
      id += subtests[i] + " > ";
    }
    Add(out, id + std::string(point->first), point->second, true);
    subtests.resize(std::min(subtests.size(), level));
  }
  return out;
}

TestOutcomes ParseTestOutput(TestFormat format, std::string_view output, int exit_code) {
  TestOutcomes out;
  switch (format) {
    case TestFormat::kJUnitXml: out = ParseJUnitXml(output); break;
    case TestFormat::kGoJson: out = ParseGoTestJson(output); break;
    case TestFormat::kTap: out = ParseTap(output); break;
    case TestFormat::kExitStatus: break;
  }
  if (out.tests.empty()) out.tests.emplace(kExitStatusTest, exit_code == 0 ? TestOutcome::kPass : TestOutcome::kFail);
  return out;
}

}  // namespace seragen::verify
