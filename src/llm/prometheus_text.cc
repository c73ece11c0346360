#include "seragen/llm/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace seragen::llm {
namespace {

bool NameChar(char c, bool first) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return alpha || (!first && c >= '0' && c <= '9');
}

// Reads a metric or label name at `pos`; empty when none.
std::string_view ReadName(std::string_view line, std::size_t& pos, std::size_t max_bytes) {
  const std::size_t start = pos;
  while (pos < line.size() && pos - start <= max_bytes && NameChar(line[pos], pos == start)) ++pos;
  return line.substr(start, pos - start);
}

void SkipBlanks(std::string_view line, std::size_t& pos) {
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
}

// A quoted label value at `pos` (on the opening quote), unescaped.
bool ReadQuoted(std::string_view line, std::size_t& pos, std::size_t max_bytes, std::string* out) {
  if (pos >= line.size() || line[pos] != '"') return false;
  for (++pos; pos < line.size(); ++pos) {
    char c = line[pos];
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c == '\\') {
      if (++pos >= line.size()) return false;
      c = line[pos] == 'n' ? '\n' : line[pos];
    }
    if (out->size() >= max_bytes) return false;
    out->push_back(c);
  }
  return false;
}

bool ReadLabels(std::string_view line, std::size_t& pos, const PrometheusLimits& limits, PrometheusSample& s) {
  ++pos;  // '{'
  for (;;) {
    SkipBlanks(line, pos);
    if (pos < line.size() && line[pos] == '}') {
      ++pos;
      return true;
    }
    std::string_view key = ReadName(line, pos, limits.max_name_bytes);
    if (key.empty() || key.size() > limits.max_name_bytes || s.labels.size() >= limits.max_labels) return false;
    SkipBlanks(line, pos);
    if (pos >= line.size() || line[pos++] != '=') return false;
    SkipBlanks(line, pos);
    std::string value;
    if (!ReadQuoted(line, pos, limits.max_label_value_bytes, &value)) return false;
    s.labels.emplace_back(std::string(key), std::move(value));
    SkipBlanks(line, pos);
    if (pos < line.size() && line[pos] == ',') ++pos;
    else if (pos >= line.size() || line[pos] != '}') return false;
  }
}

bool ReadValue(std::string_view text, double* out) {
  if (text == "+Inf" || text == "Inf") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Inf") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' || text.front() == '.')) {
    return false;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// One wanted sample line (name already read up to `pos`).
bool ParseSample(std::string_view line, std::size_t pos, std::string_view name, const PrometheusLimits& limits,
                 PrometheusSample& s) {
  s.name = std::string(name);
  if (pos < line.size() && line[pos] == '{' && !ReadLabels(line, pos, limits, s)) return false;
  if (pos >= line.size() || (line[pos] != ' ' && line[pos] != '\t')) return false;
  SkipBlanks(line, pos);
  const std::size_t end = line.find_first_of(" \t", pos);
  return ReadValue(line.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos), &s.value);
}

Status LineError(std::size_t line_no, const char* what) {
  return InvalidArgumentError("metrics line " + std::to_string(line_no) + ": " + what);
}

}  // namespace

Result<std::vector<PrometheusSample>> ParsePrometheusText(std::string_view text,
                                                          const std::function<bool(std::string_view)>& want,
                                                          const PrometheusLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return InvalidArgumentError("metrics: " + std::to_string(text.size()) + " bytes, more than the " +
                                std::to_string(limits.max_bytes) + " read");
  }
  std::vector<PrometheusSample> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t pos = 0;
    SkipBlanks(line, pos);
    if (pos >= line.size() || line[pos] == '#') continue;
    std::string_view name = ReadName(line, pos, limits.max_name_bytes);
    if (name.empty() || name.size() > limits.max_name_bytes) continue;  // not a sample we could want
    if (want && !want(name)) continue;
    if (out.size() >= limits.max_samples) return LineError(line_no, "more samples than the parser keeps");
    PrometheusSample s;
    if (!ParseSample(line, pos, name, limits, s)) return LineError(line_no, "not a sample (name{labels} value)");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace seragen::llm
