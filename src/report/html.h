// HTML building blocks for the report. Every text taken from a run (model
// output, observations, patches, repository paths, even task ids) goes
// through Escape: invalid UTF-8 repaired, & < > " ' escaped, NUL and other C0
// controls but \n \r \t replaced. Sizes are bounded: long text is shown up to
// a first part, the rest behind a <details> expander, and never more than a
// hard cap. The output needs no JavaScript.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seragen::report {

// Text for element content or a quoted attribute value.
std::string Escape(std::string_view text);
// The same, appended to `out` (pages are built in one buffer).
void AppendEscaped(std::string& out, std::string_view text);

// A URL path component for href/src (only [A-Za-z0-9._-] kept as is,
// everything else percent-encoded).
std::string UrlComponent(std::string_view text);

struct ClipLimits {
  std::size_t shown = 2000;      // bytes shown before the expander
  std::size_t cap = 200 * 1024;  // bytes shown at most (the rest is counted, not shown)
};

// <pre class="CLASS"> with the first `shown` bytes; when longer, a
// <details> holding the rest (up to `cap`), and a note of bytes left out.
std::string ClippedPre(std::string_view text, std::string_view css_class, const ClipLimits& limits = {});
void AppendClippedPre(std::string& out, std::string_view text, std::string_view css_class,
                      const ClipLimits& limits = {});

// The first `max_bytes` of text at a character boundary, "…" appended when cut.
std::string Clip(std::string_view text, std::size_t max_bytes);

// Number with thousands separators ("12,345").
std::string Thousands(long long value);

// The page head: doctype, charset, title (escaped), inline style sheet; the
// body opened. `extra_head` is trusted markup (e.g. an inline script).
std::string PageHead(std::string_view title, std::string_view extra_head = "");
std::string PageTail();

// The report's style sheet (inline in every page, so one page opens alone).
std::string_view StyleSheet();

}  // namespace seragen::report
