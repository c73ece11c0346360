// TemplateMatcher: recognises text that was rendered from a "{{name}}" prompt
// template and recovers the placeholder values. The template's literal text
// between placeholders becomes a chain of anchors, so the teacher learns the
// request kind and its parameters from the prompt files, not from C++ literals.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seragen::teacher {

class TemplateMatcher {
 public:
  // Splits `template_text` like RenderTemplate does ("{{{{" is a literal "{{",
  // spaces inside braces are ignored). A placeholder used several times
  // binds on its first use; later uses must repeat the same value.
  explicit TemplateMatcher(std::string_view template_text);

  // Values of the placeholders when `text` contains a rendering of the
  // template (leading/trailing text around it is allowed). Between two
  // anchors the first occurrence of the next anchor ends a value, except for
  // the final anchor, which is searched from the end. Literal text is
  // compared with runs of whitespace treated as equal.
  std::optional<std::map<std::string, std::string>> Match(std::string_view text) const;

  // The longest literal stretch of the template (whitespace-collapsed), used
  // as a fallback marker when the prompt was split or edited.
  const std::string& LongestAnchor() const { return longest_anchor_; }

  // Closing tag name of the last "</tag>" in the literal text ("" if none).
  std::string LastClosingTag() const;

 private:
  struct Segment {
    bool is_placeholder = false;
    std::string text;  // literal text (whitespace-collapsed) or placeholder name
  };
  std::vector<Segment> segments_;
  std::string longest_anchor_;
};

// Collapses every run of whitespace to one space and trims both ends.
std::string CollapseWhitespace(std::string_view text);

}  // namespace seragen::teacher
