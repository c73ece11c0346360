#include "report/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.h"

namespace seragen::report {
namespace {

constexpr int kRowHeight = 18;
constexpr int kLabelWidth = 210;
constexpr int kNoteWidth = 90;
constexpr std::size_t kMaxLabelBytes = 32;  // about what fits kLabelWidth at 11px

std::string Num(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15)
    return Thousands(static_cast<long long>(std::round(v)));
  return fmt::format("{:.3g}", v);
}

}  // namespace

std::string BarChartSvg(std::string_view title, std::vector<Bar> bars, const BarChartOptions& o) {
  if (bars.empty()) return "";
  if (bars.size() > o.max_bars) {
    std::size_t extra = bars.size() - o.max_bars;
    double rest = 0;
    for (std::size_t i = o.max_bars; i < bars.size(); ++i) rest += bars[i].value;
    bars.resize(o.max_bars);
    if (!o.ratio) bars.push_back({fmt::format("({} more)", extra), rest, ""});
  }
  double max = o.ratio ? 1.0 : 0.0;
  for (const Bar& b : bars) max = std::max(max, b.value);
  if (max <= 0) max = 1;
  int bar_area = o.width - kLabelWidth - kNoteWidth;
  int height = static_cast<int>(bars.size()) * kRowHeight + 4;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\" "
      "font-size=\"11\" font-family=\"sans-serif\">",
      o.width, height, Escape(title));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    int y = static_cast<int>(i) * kRowHeight + 2;
    int w = static_cast<int>(std::round(bar_area * std::clamp(b.value / max, 0.0, 1.0)));
    std::string shown = o.ratio ? fmt::format("{:.0f}%", 100 * b.value) : Num(b.value);
    if (!b.note.empty()) shown += " · " + b.note;
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\"><title>{}</title>{}</text>"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#7aa7e8\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>",
        kLabelWidth - 6, y + 12, Escape(b.label), Escape(Clip(b.label, kMaxLabelBytes)), kLabelWidth, y + 2,
        std::max(w, 1), kRowHeight - 5, kLabelWidth + w + 4, y + 12, Escape(shown));
  }
  return svg + "</svg>";
}

Histogram MakeHistogram(const std::vector<double>& values, std::size_t bins) {
  Histogram h;
  if (values.empty() || bins == 0) return h;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  h.low = *lo;
  if (*hi <= *lo) {
    h.counts.assign(1, values.size());
    h.bin_width = 1;
    return h;
  }
  bool integers = std::all_of(values.begin(), values.end(), [](double v) { return v == std::floor(v); });
  if (integers && *hi - *lo + 1 <= static_cast<double>(bins)) {  // one bin per value
    bins = static_cast<std::size_t>(*hi - *lo + 1);
    h.bin_width = 1;
    h.counts.assign(bins, 0);
    for (double v : values) h.counts[static_cast<std::size_t>(v - h.low)]++;
    return h;
  }
  h.bin_width = (*hi - *lo) / static_cast<double>(bins);
  h.counts.assign(bins, 0);
  for (double v : values) {
    auto i = static_cast<std::size_t>((v - h.low) / h.bin_width);
    h.counts[std::min(i, bins - 1)]++;
  }
  return h;
}

std::string HistogramSvg(std::string_view title, const Histogram& h, std::string_view unit) {
  if (h.counts.empty()) return "";
  const int width = 460, height = 150, left = 40, bottom = 20, top = 14;
  std::size_t max = *std::max_element(h.counts.begin(), h.counts.end());
  if (max == 0) max = 1;
  double bw = static_cast<double>(width - left - 4) / static_cast<double>(h.counts.size());
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\" "
      "font-size=\"10\" font-family=\"sans-serif\"><text x=\"2\" y=\"10\">{}</text>",
      width, height, Escape(title), Thousands(static_cast<long long>(max)));
  int plot = height - bottom - top;
  // One bin per whole number: bars are labelled with their value, not a range.
  bool per_value = h.bin_width == 1 && h.low == std::floor(h.low);
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    int bh = static_cast<int>(std::round(plot * static_cast<double>(h.counts[i]) / static_cast<double>(max)));
    double x = left + bw * static_cast<double>(i);
    double from = h.low + h.bin_width * static_cast<double>(i);
    std::string range = per_value ? Num(from) : Num(from) + " – " + Num(from + h.bin_width);
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#7aa7e8\"><title>{}{}: "
        "{}</title></rect>",
        x + 1, top + plot - bh, std::max(bw - 2, 1.0), bh, range, Escape(unit), h.counts[i]);
  }
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>", left, top + plot, width - 4,
                     top + plot);
  svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", left, height - 4, Num(h.low));
  svg +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>", width - 4, height - 4,
                  Num(h.low + h.bin_width * static_cast<double>(h.counts.size()) - (per_value ? 1 : 0)), Escape(unit));
  return svg + "</svg>";
}

std::string ChartBox(std::string_view title, const std::string& svg) {
  return fmt::format("<div class=\"chart\"><h3>{}</h3>{}</div>", Escape(title),
                     svg.empty() ? "<p class=\"note\">no data yet</p>" : svg);
}

}  // namespace seragen::report
