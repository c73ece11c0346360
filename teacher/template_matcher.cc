#include "teacher/template_matcher.h"

#include <cctype>

#include "seragen/base/strings.h"

namespace seragen::teacher {
namespace {

// Collapsed copy of `text` plus, for each collapsed byte, its original offset.
struct Collapsed {
  std::string text;
  std::vector<std::size_t> origin;  // size text.size() + 1
};

Collapsed CollapseWithMap(std::string_view text) {
  Collapsed c;
  c.text.reserve(text.size());
  c.origin.reserve(text.size() + 1);
  bool in_space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsAsciiSpace(text[i])) {
      if (!in_space) {
        c.text.push_back(' ');
        c.origin.push_back(i);
      }
      in_space = true;
    } else {
      c.text.push_back(text[i]);
      c.origin.push_back(i);
      in_space = false;
    }
  }
  c.origin.push_back(text.size());
  return c;
}

}  // namespace

std::string CollapseWhitespace(std::string_view text) {
  return std::string(TrimAsciiSpace(CollapseWithMap(text).text));
}

TemplateMatcher::TemplateMatcher(std::string_view t) {
  std::string literal;
  auto flush_literal = [&] {
    if (!literal.empty()) segments_.push_back({false, CollapseWithMap(literal).text});
    literal.clear();
  };
  std::size_t i = 0;
  while (i < t.size()) {
    if (t.substr(i, 4) == "{{{{") {
      literal += "{{";
      i += 4;
      continue;
    }
    if (t.substr(i, 2) == "{{") {
      std::size_t close = t.find("}}", i + 2);
      if (close != std::string_view::npos) {
        flush_literal();
        segments_.push_back({true, std::string(TrimAsciiSpace(t.substr(i + 2, close - i - 2)))});
        i = close + 2;
        continue;
      }
    }
    literal.push_back(t[i]);
    ++i;
  }
  flush_literal();
  // The text around a rendering may have been trimmed: drop outer whitespace.
  if (!segments_.empty() && !segments_.front().is_placeholder) {
    std::string& s = segments_.front().text;
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  }
  if (!segments_.empty() && !segments_.back().is_placeholder) {
    std::string& s = segments_.back().text;
    while (!s.empty() && s.back() == ' ') s.pop_back();
  }
  for (const Segment& s : segments_) {
    if (!s.is_placeholder) {
      std::string trimmed(TrimAsciiSpace(s.text));
      if (trimmed.size() > longest_anchor_.size()) longest_anchor_ = trimmed;
    }
  }
}

std::optional<std::map<std::string, std::string>> TemplateMatcher::Match(std::string_view text) const {
  Collapsed c = CollapseWithMap(text);
  std::map<std::string, std::string> values;
  std::size_t pos = 0;
  const Segment* pending = nullptr;  // placeholder waiting for its end
  std::size_t pending_start = 0;
  bool first = true;
  auto bind = [&](const Segment& ph, std::size_t from, std::size_t to) {
    std::string value(TrimAsciiSpace(text.substr(c.origin[from], c.origin[to] - c.origin[from])));
    auto it = values.find(ph.text);
    if (it == values.end()) {
      values.emplace(ph.text, std::move(value));
      return true;
    }
    return CollapseWhitespace(it->second) == CollapseWhitespace(value);
  };
  std::size_t last_literal = segments_.size();
  for (std::size_t k = 0; k < segments_.size(); ++k) {
    if (!segments_[k].is_placeholder) last_literal = k;
  }
  for (std::size_t k = 0; k < segments_.size(); ++k) {
    const Segment& seg = segments_[k];
    if (seg.is_placeholder) {
      if (pending != nullptr && !bind(*pending, pending_start, pos)) return std::nullopt;
      pending = &seg;
      pending_start = pos;
      first = false;
      continue;
    }
    if (seg.text.empty()) continue;
    std::size_t found;
    if (first) {
      found = c.text.find(seg.text);
    } else if (k == last_literal && pending != nullptr) {
      found = c.text.rfind(seg.text);
      if (found != std::string::npos && found < pos) found = std::string::npos;
    } else {
      found = c.text.find(seg.text, pos);
    }
    if (found == std::string::npos) return std::nullopt;
    if (pending != nullptr) {
      if (!bind(*pending, pending_start, found)) return std::nullopt;
      pending = nullptr;
    }
    pos = found + seg.text.size();
    first = false;
  }
  if (pending != nullptr && !bind(*pending, pending_start, c.text.size())) return std::nullopt;
  return values;
}

std::string TemplateMatcher::LastClosingTag() const {
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    if (it->is_placeholder) continue;
    const std::string& s = it->text;
    std::size_t close = s.rfind("</");
    while (close != std::string::npos) {
      std::size_t end = s.find('>', close);
      if (end != std::string::npos && end > close + 2) {
        std::string name = s.substr(close + 2, end - close - 2);
        bool ok = !name.empty();
        for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-');
        if (ok) return name;
      }
      if (close == 0) break;
      close = s.rfind("</", close - 1);
    }
  }
  return {};
}

}  // namespace seragen::teacher
