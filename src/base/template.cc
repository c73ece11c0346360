#include "seragen/base/template.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace seragen {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

int LineOf(std::string_view text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

std::string_view TrimSpaces(std::string_view s) {
  std::size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

enum class TagKind { kEscape, kValue, kOpen, kOpenInverted, kClose };

struct Tag {
  TagKind kind = TagKind::kValue;
  std::size_t open = 0;  // position of "{{"
  std::size_t end = 0;   // one past "}}"
  std::string_view name;
  std::string_view raw;  // between the braces
};

// Kind and name of a tag body ("name", "#name", "^ name", "/name").
std::pair<TagKind, std::string_view> ParseTagBody(std::string_view raw) {
  std::string_view body = TrimSpaces(raw);
  TagKind kind = TagKind::kValue;
  if (!body.empty() && (body[0] == '#' || body[0] == '^' || body[0] == '/')) {
    kind = body[0] == '#' ? TagKind::kOpen : body[0] == '^' ? TagKind::kOpenInverted : TagKind::kClose;
    body = TrimSpaces(body.substr(1));
  }
  return {kind, body};
}

Status TemplateError(std::string_view template_name, std::string_view text, std::size_t pos, const std::string& what) {
  return InvalidArgumentError(std::string(template_name) + ":" + std::to_string(LineOf(text, pos)) + ": " + what);
}

// The next tag at or after `from` (std::nullopt: none left).
Result<std::optional<Tag>> NextTag(std::string_view text, std::size_t from, std::string_view template_name) {
  std::size_t open = text.find("{{", from);
  if (open == std::string_view::npos) return std::optional<Tag>();
  if (text.substr(open, 4) == "{{{{") return std::optional<Tag>(Tag{TagKind::kEscape, open, open + 4, {}, {}});
  std::size_t close = text.find("}}", open + 2);
  if (close == std::string_view::npos) {
    return TemplateError(template_name, text, open, "'{{' without a closing '}}'");
  }
  Tag tag;
  tag.open = open;
  tag.end = close + 2;
  tag.raw = text.substr(open + 2, close - open - 2);
  std::tie(tag.kind, tag.name) = ParseTagBody(tag.raw);
  if (tag.name.empty() || !std::all_of(tag.name.begin(), tag.name.end(), IsNameChar)) {
    return TemplateError(template_name, text, open, "malformed placeholder '{{" + std::string(tag.raw) + "}}'");
  }
  return std::optional<Tag>(tag);
}

bool OnlyBlanks(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// For a section tag alone on its line: the line's start and the position
// after its newline (or the end of the text).
std::optional<std::pair<std::size_t, std::size_t>> StandaloneLine(std::string_view text, const Tag& tag) {
  std::size_t start = tag.open == 0 ? 0 : text.rfind('\n', tag.open - 1);
  start = start == std::string_view::npos || tag.open == 0 ? 0 : start + 1;
  std::size_t nl = text.find('\n', tag.end);
  std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
  if (!OnlyBlanks(text.substr(start, tag.open - start)) || !OnlyBlanks(text.substr(tag.end, stop - tag.end))) {
    return std::nullopt;
  }
  return std::make_pair(start, nl == std::string_view::npos ? text.size() : nl + 1);
}

}  // namespace

Result<std::string> ResolveTemplateSections(std::string_view text, const TemplateNameLookup& lookup,
                                            std::string_view template_name) {
  struct Frame {
    std::string_view name;
    bool keep;
    std::size_t open;
  };
  std::vector<Frame> stack;
  bool emitting = true;
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (true) {
    SG_ASSIGN_OR_RETURN(std::optional<Tag> tag, NextTag(text, i, template_name));
    const std::size_t stop = tag ? tag->open : text.size();
    if (emitting) out.append(text.substr(i, stop - i));
    if (!tag) break;
    if (tag->kind == TagKind::kEscape || tag->kind == TagKind::kValue) {
      if (tag->kind == TagKind::kValue && !lookup(tag->name)) {
        return TemplateError(template_name, text, tag->open,
                             "no value for placeholder '{{" + std::string(tag->name) + "}}'");
      }
      if (emitting) out.append(text.substr(tag->open, tag->end - tag->open));
      i = tag->end;
      continue;
    }
    std::size_t next = tag->end;
    if (auto line = StandaloneLine(text, *tag)) {
      if (emitting) out.resize(out.size() - (tag->open - line->first));
      next = line->second;
    }
    if (tag->kind == TagKind::kClose) {
      if (stack.empty()) {
        return TemplateError(template_name, text, tag->open,
                             "'{{/" + std::string(tag->name) + "}}' closes no open section");
      }
      if (stack.back().name != tag->name) {
        return TemplateError(
            template_name, text, tag->open,
            "'{{/" + std::string(tag->name) + "}}' where '{{/" + std::string(stack.back().name) + "}}' was expected");
      }
      stack.pop_back();
    } else {
      std::optional<bool> set = lookup(tag->name);
      if (!set) {
        return TemplateError(template_name, text, tag->open,
                             "no value for section '{{" + std::string(tag->raw) + "}}'");
      }
      stack.push_back({tag->name, tag->kind == TagKind::kOpen ? *set : !*set, tag->open});
    }
    emitting = std::all_of(stack.begin(), stack.end(), [](const Frame& f) { return f.keep; });
    i = next;
  }
  if (!stack.empty()) {
    return TemplateError(template_name, text, stack.back().open,
                         "section '{{" + std::string(stack.back().name) + "}}' is not closed");
  }
  return out;
}

Result<std::string> RenderTemplate(std::string_view text, const TemplateValues& values,
                                   std::string_view template_name) {
  auto lookup = [&values](std::string_view name) -> std::optional<bool> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return !it->second.empty();
  };
  SG_ASSIGN_OR_RETURN(std::string resolved, ResolveTemplateSections(text, lookup, template_name));
  // Every tag left is a known, well-formed placeholder or "{{{{".
  std::string out;
  out.reserve(resolved.size() + 256);
  std::size_t i = 0;
  while (true) {
    SG_ASSIGN_OR_RETURN(std::optional<Tag> tag, NextTag(resolved, i, template_name));
    if (!tag) {
      out.append(std::string_view(resolved).substr(i));
      break;
    }
    out.append(std::string_view(resolved).substr(i, tag->open - i));
    if (tag->kind == TagKind::kEscape) {
      out += "{{";
    } else {
      out += values.find(tag->name)->second;
    }
    i = tag->end;
  }
  return out;
}

namespace {

// Calls fn(kind, name) for every tag of `text` in order ({{{{ escapes skipped).
template <typename Fn>
void ForEachTag(std::string_view text, Fn fn) {
  std::size_t i = 0;
  while ((i = text.find("{{", i)) != std::string_view::npos) {
    if (text.substr(i, 4) == "{{{{") {
      i += 4;
      continue;
    }
    std::size_t close = text.find("}}", i + 2);
    if (close == std::string_view::npos) break;
    auto [kind, name] = ParseTagBody(text.substr(i + 2, close - i - 2));
    fn(kind, name);
    i = close + 2;
  }
}

void AddOnce(std::vector<std::string>& names, std::string_view name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

}  // namespace

std::vector<std::string> TemplatePlaceholders(std::string_view text) {
  std::vector<std::string> names;
  ForEachTag(text, [&](TagKind, std::string_view name) { AddOnce(names, name); });
  return names;
}

std::vector<std::string> TemplateSectionNames(std::string_view text) {
  std::vector<std::string> names;
  ForEachTag(text, [&](TagKind kind, std::string_view name) {
    if (kind == TagKind::kOpen || kind == TagKind::kOpenInverted) AddOnce(names, name);
  });
  return names;
}

}  // namespace seragen
