#include "report/occupancy_section.h"

#include <fmt/format.h>

#include "report/html.h"
#include "seragen/runview/endpoint_occupancy.h"

namespace seragen::report {
namespace {

std::string Pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : std::string("–");
}

std::string IdleCauses(const journal::EndpointOccupancyRecord& e) {
  std::string out;
  for (const auto& [cause, s] : e.idle_s) {
    if (s <= 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : "; ", Escape(cause), Pct(s, e.tracked_s));
  }
  return out.empty() ? "–" : out;
}

std::string EndpointRow(const journal::EndpointOccupancyRecord& e) {
  const double mean = e.MeanInFlight();
  std::string capacity = e.capacity > 0 ? fmt::format("{} ({})", e.capacity, Pct(mean, e.capacity)) : "unlimited";
  return fmt::format(
      "<tr><td><code>{}</code></td><td class=\"num\">{:.1f}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
      Escape(Clip(e.endpoint, 300)), mean, capacity, e.peak_in_flight, Pct(e.IdleSeconds(), e.tracked_s), IdleCauses(e),
      Pct(static_cast<double>(e.cached_tokens), static_cast<double>(e.prompt_tokens)),
      Pct(static_cast<double>(e.affinity_kept), static_cast<double>(e.affinity_kept + e.affinity_moved_in)));
}

}  // namespace

std::string OccupancySection(const journal::OccupancyRecord& r) {
  if (r.endpoints.empty() && r.concurrency.empty()) return "";
  std::string out = "<h2 id=\"occupancy\">Teacher occupancy</h2>";
  if (!r.endpoints.empty()) {
    out +=
        "<table id=\"occupancy-table\"><thead><tr><th>endpoint</th><th>in flight (mean)</th><th>capacity "
        "(busy)</th><th>peak</th><th>idle</th><th>idle causes</th><th>cache hit</th><th>on previous "
        "endpoint</th></tr></thead><tbody>";
    for (const auto& e : r.endpoints) out += EndpointRow(e);
    out += "</tbody></table>";
  }
  // What held calls back and the tasks in flight: the lines of `seragen status`.
  journal::OccupancyRecord rest;
  rest.held_s = r.held_s;
  rest.holds = r.holds;
  rest.concurrency = r.concurrency;
  const std::string lines = runview::FormatOccupancy(rest);
  if (!lines.empty()) out += "<pre class=\"note\">" + Escape(lines) + "</pre>";
  return out;
}

}  // namespace seragen::report
