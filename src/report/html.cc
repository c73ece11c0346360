#include "report/html.h"

#include <fmt/format.h>

#include "seragen/base/utf8.h"

namespace seragen::report {

namespace {

// The entity (or replacement) for a byte that HTML text cannot hold as is;
// empty for bytes copied unchanged.
std::string_view Replacement(char c) {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\n':
    case '\r':
    case '\t': return {};
    default:
      // U+FFFD: controls are not allowed in HTML text.
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? "\xef\xbf\xbd" : std::string_view();
  }
}

}  // namespace

void AppendEscaped(std::string& out, std::string_view text) {
  std::string repaired;
  if (!IsValidUtf8(text)) {
    repaired = RepairUtf8(text);
    text = repaired;
  }
  out.reserve(out.size() + text.size() + text.size() / 8);
  std::size_t plain = 0;  // start of the run of bytes copied unchanged
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string_view r = Replacement(text[i]);
    if (r.empty()) continue;
    out.append(text.data() + plain, i - plain).append(r);
    plain = i + 1;
  }
  out.append(text.data() + plain, text.size() - plain);
}

std::string Escape(std::string_view text) {
  std::string out;
  AppendEscaped(out, text);
  return out;
}

std::string UrlComponent(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (plain) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

std::string Clip(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return std::string(text.substr(0, Utf8SafePrefixLength(text, max_bytes))) + "…";
}

void AppendClippedPre(std::string& out, std::string_view text, std::string_view css_class, const ClipLimits& limits) {
  std::size_t first = Utf8SafePrefixLength(text, limits.shown);
  out.append("<pre class=\"").append(css_class).append("\">");
  AppendEscaped(out, text.substr(0, first));
  out.append("</pre>");
  if (first >= text.size()) return;
  std::string_view rest = text.substr(first);
  std::size_t more = Utf8SafePrefixLength(rest, limits.cap > first ? limits.cap - first : 0);
  out += fmt::format("<details class=\"more\"><summary>{} more bytes</summary><pre class=\"{}\">",
                     Thousands(static_cast<long long>(rest.size())), css_class);
  AppendEscaped(out, rest.substr(0, more));
  out.append("</pre>");
  if (more < rest.size()) {
    out +=
        fmt::format("<p class=\"note\">{} bytes not shown</p>", Thousands(static_cast<long long>(rest.size() - more)));
  }
  out += "</details>";
}

std::string ClippedPre(std::string_view text, std::string_view css_class, const ClipLimits& limits) {
  std::string out;
  AppendClippedPre(out, text, css_class, limits);
  return out;
}

std::string Thousands(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string_view StyleSheet() {
  return R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #dde1e8;padding-bottom:3px}h3{font-size:15px;margin:16px 0 6px}
a{color:#1a56b8}table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #dde1e8;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f5f8}td.n,th.n{text-align:right}pre{background:#f7f8fa;border:1px solid #e3e6ec;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;margin:4px 0;font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace}
.kv td:first-child{color:#5a6375;white-space:nowrap}.note{color:#5a6375;font-size:12.5px}
.o-accepted{color:#137333;font-weight:600}.o-rejected,.o-failed{color:#b3261e;font-weight:600}.o-not_scorable,.o-skipped{color:#8a5a00}.o-running,.o-planned{color:#5a6375}
.diff .a{background:#e6f4ea;color:#0d5c22}.diff .d{background:#fce8e6;color:#8c1d18}.diff .h{color:#1a56b8}.diff .f{font-weight:600}
.diff span{display:block}.m{background:#e6f4ea}.u{background:#fce8e6}
details.step{border:1px solid #e3e6ec;margin:4px 0;padding:2px 8px}details.step>summary{cursor:pointer}details.more>summary{cursor:pointer;color:#1a56b8;font-size:12.5px}
.lbl{color:#5a6375;font-size:12px;margin-top:6px}.bad{color:#b3261e}
.charts{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.chart{border:1px solid #e3e6ec;padding:6px 10px}.chart h3{margin:2px 0 6px}
.filters{margin:8px 0;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.funnel td.bar{width:320px}.funnel .b{background:#7aa7e8;height:12px}
th.sort{cursor:pointer}nav{margin:10px 0}
)css";
}

std::string PageHead(std::string_view title, std::string_view extra_head) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{}</title><style>{}</style>{}</head><body>\n",
      Escape(title), StyleSheet(), extra_head);
}

std::string PageTail() { return "</body></html>\n"; }

}  // namespace seragen::report
