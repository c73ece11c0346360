#include "seragen/report/index_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "report/charts.h"
#include "report/html.h"
#include "report/index_charts.h"
#include "report/occupancy_section.h"

namespace seragen::report {
namespace {

constexpr std::size_t kMaxCellBytes = 200;
constexpr std::size_t kMaxFilterOptions = 500;

std::string E(std::string_view s) { return Escape(Clip(s, kMaxCellBytes)); }

double Recall(const TaskRow& row) { return row.scores ? row.scores->recall : -1; }

std::string FunctionLabel(const TaskRow& row) { return row.qualname.empty() ? row.function_id : row.qualname; }

std::string TaskRowHtml(const TaskRow& row, const IndexOptions& o) {
  auto steps = [](const RolloutSummary& s) { return s.present ? std::to_string(s.steps) : std::string(); };
  return fmt::format(
      "<tr><td><a href=\"{}/{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>{}</td><td class=\"o-{}\">{}</td>"
      "<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
      o.tasks_dir, UrlComponent(row.page), E(row.task_id.substr(0, 12)), E(FunctionLabel(row)), E(row.repo),
      E(row.category_name), UrlComponent(row.OutcomeName()), E(row.OutcomeName()), E(row.detail), steps(row.r1),
      steps(row.r2), Thousands(row.tokens.prompt_tokens + row.tokens.completion_tokens),
      row.scores ? fmt::format("{:.2f}", row.scores->recall) : "");
}

std::string TableHead() {
  const char* heads[] = {"task",   "function", "repository", "category", "status",
                         "detail", "steps r1", "steps r2",   "tokens",   "recall"};
  std::string out = "<thead><tr>";
  for (std::size_t i = 0; i < std::size(heads); ++i) {
    out += fmt::format("<th class=\"sort{}\" data-col=\"{}\">{}</th>", i >= 6 ? " n" : "", i, heads[i]);
  }
  return out + "</tr></thead>";
}

std::string Select(std::string_view id, std::string_view label, const std::set<std::string>& values) {
  std::string out = fmt::format("<label>{} <select id=\"{}\"><option value=\"\">all</option>", label, id);
  std::size_t n = 0;
  for (const std::string& v : values) {
    if (++n > kMaxFilterOptions) break;
    out += fmt::format("<option value=\"{}\">{}</option>", Escape(v), E(v));
  }
  return out + "</select></label>";
}

std::string TableSection(const RunView& view, const IndexOptions& o) {
  std::set<std::string> outcomes, categories, repos;
  for (const TaskRow& r : view.rows) {
    outcomes.insert(std::string(r.OutcomeName()));
    categories.insert(r.category_name);
    repos.insert(r.repo);
  }
  std::size_t shown = std::min(view.rows.size(), o.first_page_rows);
  std::string out =
      fmt::format("<h2 id=\"tasks\">Tasks ({})</h2>", Thousands(static_cast<long long>(view.rows.size())));
  out += "<div class=\"filters\">" + Select("f-outcome", "status", outcomes) +
         Select("f-category", "category", categories) + Select("f-repo", "repository", repos) +
         "<label>search <input id=\"f-text\" type=\"search\" placeholder=\"id or function\"></label>"
         "<button id=\"prev\" type=\"button\">‹ prev</button><span id=\"pageinfo\"></span>"
         "<button id=\"next\" type=\"button\">next ›</button></div>";
  out += fmt::format(
      "<noscript><p class=\"note\">Without JavaScript the table shows the first {} tasks in plan order; all of "
      "them, {} per page: <a href=\"{}\">plain table pages</a>.</p></noscript>",
      shown, o.rows_per_chunk, ChunkPagePath(0));
  out += "<table id=\"task-table\">" + TableHead() + "<tbody id=\"task-rows\">\n";
  for (std::size_t i = 0; i < shown; ++i) out += TaskRowHtml(view.rows[i], o);
  out += "</tbody></table>";
  nlohmann::json meta = {{"total", view.rows.size()},
                         {"chunks", ChunkCount(view.rows.size(), o)},
                         {"chunk_rows", o.rows_per_chunk},
                         {"per_page", o.first_page_rows},
                         {"tasks_dir", o.tasks_dir}};
  // "<" escaped too, so the JSON cannot end the script element.
  std::string meta_text = meta.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  out += "<script type=\"application/json\" id=\"table-meta\">" + meta_text + "</script>";
  return out;
}

std::string_view TableScript();
std::string_view TableControlsScript();

}  // namespace

std::size_t ChunkCount(std::size_t rows, const IndexOptions& o) {
  std::size_t per = std::max<std::size_t>(1, o.rows_per_chunk);
  return (rows + per - 1) / per;
}

std::string ChunkPath(std::size_t chunk) { return fmt::format("data/rows-{}.js", chunk); }
std::string ChunkPagePath(std::size_t chunk) { return fmt::format("data/rows-{}.html", chunk); }

std::string RowsPageHtml(const std::vector<TaskRow>& rows, std::size_t chunk, const IndexOptions& o) {
  std::size_t per = std::max<std::size_t>(1, o.rows_per_chunk);
  std::size_t chunks = ChunkCount(rows.size(), o);
  std::size_t begin = chunk * per, end = std::min(rows.size(), begin + per);
  IndexOptions here = o;
  here.tasks_dir = "../" + o.tasks_dir;  // this page is in data/
  std::string out = PageHead(fmt::format("seragen report · tasks {}–{}", begin + 1, end));
  // Links between these pages are relative to data/: "rows-K.html".
  std::string nav = "<nav><a href=\"../index.html\">← run report</a>";
  if (chunk > 0) nav += fmt::format(" · <a href=\"rows-{}.html\">‹ previous</a>", chunk - 1);
  nav += fmt::format(" · tasks {}–{} of {}", begin + 1, end, rows.size());
  if (chunk + 1 < chunks) nav += fmt::format(" · <a href=\"rows-{}.html\">next ›</a>", chunk + 1);
  nav += "</nav>";
  out += nav + "<table>" + TableHead() + "<tbody>\n";
  for (std::size_t i = begin; i < end; ++i) out += TaskRowHtml(rows[i], here);
  return out + "</tbody></table>" + nav + PageTail();
}

std::string RowsChunkJs(const std::vector<TaskRow>& rows, std::size_t begin, std::size_t end, std::size_t chunk) {
  nlohmann::json data = nlohmann::json::array();
  auto steps = [](const RolloutSummary& s) { return s.present ? s.steps : -1; };
  for (std::size_t i = begin; i < end && i < rows.size(); ++i) {
    const TaskRow& r = rows[i];
    data.push_back({r.page, Clip(r.task_id, kMaxCellBytes), Clip(FunctionLabel(r), kMaxCellBytes),
                    Clip(r.repo, kMaxCellBytes), Clip(r.category_name, kMaxCellBytes), r.OutcomeName(),
                    Clip(r.detail, kMaxCellBytes), steps(r.r1), steps(r.r2),
                    r.tokens.prompt_tokens + r.tokens.completion_tokens, Recall(r)});
  }
  // ASCII-only output: no U+2028/U+2029 or invalid bytes can break the script.
  return fmt::format("seragenRows({},{});\n", chunk,
                     data.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

std::string RenderIndex(const RunView& view, const IndexOptions& o) {
  std::string out = PageHead("seragen report · " + Clip(view.run_dir, 200));
  out += fmt::format("<h1>seragen run report</h1><p class=\"note\">run directory <code>{}</code></p>",
                     Escape(Clip(view.run_dir, 1000)));
  const std::string occupancy = OccupancySection(view.status.occupancy);
  out += "<nav><a href=\"#overview\">overview</a> · " +
         std::string(occupancy.empty() ? "" : "<a href=\"#occupancy\">teacher occupancy</a> · ") +
         "<a href=\"#charts\">charts</a> · <a href=\"#tasks\">tasks</a></nav>";
  out += OverviewSection(view);
  out += occupancy;
  out += ChartsSection(view);
  out += TableSection(view, o);
  out += "<script>" + std::string(TableScript()) + std::string(TableControlsScript()) + "</script>";
  return out + PageTail();
}

namespace {

// The task table's behaviour: pages of per_page rows; sorting and filtering
// load every chunk first. Cells are made with textContent (never innerHTML).
std::string_view TableScript() {
  return R"js(
(function () {
  'use strict';
  var meta = JSON.parse(document.getElementById('table-meta').textContent);
  var rows = new Array(meta.total), loaded = {}, waiting = {}, state = {page: 0, col: -1, dir: 1};
  var order = null;  // filtered and sorted row indices; null = plan order, no filter
  window.seragenRows = function (k, data) {
    for (var i = 0; i < data.length; i++) rows[k * meta.chunk_rows + i] = data[i];
    loaded[k] = true;
    var cbs = waiting[k] || [];
    delete waiting[k];
    cbs.forEach(function (f) { f(); });
  };
  function info(text) { document.getElementById('pageinfo').textContent = text; }
  function load(k, cb) {
    if (loaded[k]) return cb();
    if (waiting[k]) { waiting[k].push(cb); return; }
    waiting[k] = [cb];
    var s = document.createElement('script');
    s.src = 'data/rows-' + k + '.js';
    s.onerror = function () { info(' could not load ' + s.src + ' '); };
    document.head.appendChild(s);
  }
  function loadChunks(list, cb) {
    var left = list.length;
    if (!left) return cb();
    list.forEach(function (k) { load(k, function () { if (--left === 0) cb(); }); });
  }
  function all() { var l = []; for (var k = 0; k < meta.chunks; k++) l.push(k); return l; }
  function value(id) { return document.getElementById(id).value; }
  var COL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  function recompute() {
    var fo = value('f-outcome'), fc = value('f-category'), fr = value('f-repo');
    var ft = value('f-text').toLowerCase();
    if (!fo && !fc && !fr && !ft && state.col < 0) { order = null; return; }
    order = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (!r) continue;
      if (fo && r[5] !== fo) continue;
      if (fc && r[4] !== fc) continue;
      if (fr && r[3] !== fr) continue;
      if (ft && r[1].toLowerCase().indexOf(ft) < 0 && r[2].toLowerCase().indexOf(ft) < 0) continue;
      order.push(i);
    }
    if (state.col >= 0) {
      var c = COL[state.col], d = state.dir;
      order.sort(function (a, b) {
        var x = rows[a][c], y = rows[b][c];
        return (x < y ? -1 : x > y ? 1 : a - b) * d;
      });
    }
  }
  function count() { return order ? order.length : meta.total; }
  function cell(tr, text, cls) {
    var td = document.createElement('td');
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function draw() {
    var body = document.getElementById('task-rows'), per = meta.per_page;
    var pages = Math.max(1, Math.ceil(count() / per));
    state.page = Math.min(state.page, pages - 1);
    var from = state.page * per, to = Math.min(count(), from + per), idx = [];
    for (var i = from; i < to; i++) idx.push(order ? order[i] : i);
    var need = {};
    idx.forEach(function (i) { need[Math.floor(i / meta.chunk_rows)] = true; });
    loadChunks(Object.keys(need).map(Number), function () {
      while (body.firstChild) body.removeChild(body.firstChild);
      idx.forEach(function (i) {
        var r = rows[i], tr = document.createElement('tr');
        if (!r) return;
        var a = document.createElement('a'), code = document.createElement('code');
        a.href = meta.tasks_dir + '/' + encodeURIComponent(r[0]);
        code.textContent = r[1].substring(0, 12);
        a.appendChild(code);
        cell(tr, '').appendChild(a);
        cell(tr, r[2]); cell(tr, r[3]); cell(tr, r[4]); cell(tr, r[5], 'o-' + r[5]); cell(tr, r[6]);
        cell(tr, r[7] < 0 ? '' : String(r[7]), 'n'); cell(tr, r[8] < 0 ? '' : String(r[8]), 'n');
        cell(tr, String(r[9]), 'n'); cell(tr, r[10] < 0 ? '' : r[10].toFixed(2), 'n');
        body.appendChild(tr);
      });
      info(' page ' + (state.page + 1) + ' of ' + pages + ' (' + count() + ' tasks) ');
    });
  }
)js";
}

// The table's controls: filters, pager, sortable headers, and a view named in
// the link (#page=N&status=...). Continues TableScript's function.
std::string_view TableControlsScript() {
  return R"js(
  function refresh() {
    info(' loading… ');
    loadChunks(all(), function () { recompute(); state.page = 0; draw(); });
  }
  ['f-outcome', 'f-category', 'f-repo'].forEach(function (id) {
    document.getElementById(id).addEventListener('change', refresh);
  });
  document.getElementById('f-text').addEventListener('input', refresh);
  document.getElementById('prev').addEventListener('click', function () {
    if (state.page > 0) { state.page--; draw(); }
  });
  document.getElementById('next').addEventListener('click', function () {
    if ((state.page + 1) * meta.per_page < count()) { state.page++; draw(); }
  });
  Array.prototype.forEach.call(document.querySelectorAll('th.sort'), function (th) {
    th.addEventListener('click', function () {
      var c = Number(th.getAttribute('data-col'));
      state.dir = state.col === c ? -state.dir : 1;
      state.col = c;
      refresh();
    });
  });
  // A link to a view of the table: #page=N&status=S&category=C&repo=R&q=TEXT&sort=COL (-COL: descending).
  var args = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) args[kv.substring(0, i)] = decodeURIComponent(kv.substring(i + 1));
  });
  var filtered = false;
  [['status', 'f-outcome'], ['category', 'f-category'], ['repo', 'f-repo'], ['q', 'f-text']].forEach(function (p) {
    if (args[p[0]] !== undefined) { document.getElementById(p[1]).value = args[p[0]]; filtered = true; }
  });
  if (args.sort !== undefined && /^-?[0-9]$/.test(args.sort)) {
    state.col = Math.abs(Number(args.sort));
    state.dir = args.sort.charAt(0) === '-' ? -1 : 1;
    filtered = true;
  }
  var page = /^[0-9]+$/.test(args.page || '') ? Math.max(0, Number(args.page) - 1) : 0;
  if (filtered) {
    loadChunks(all(), function () { recompute(); state.page = page; draw(); });
  } else if (page > 0) {
    state.page = page;
    draw();
  } else {
    info(' page 1 of ' + Math.max(1, Math.ceil(meta.total / meta.per_page)) + ' (' + meta.total + ' tasks) ');
  }
})();
)js";
}

}  // namespace
}  // namespace seragen::report
