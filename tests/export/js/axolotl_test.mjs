// Acceptance test for configs/train/axolotl-hf.yaml: which tokens axolotl's
// `type: chat_template` strategy trains on exported hf rows, per family,
// following its own rule (prompt_strategies/chat_template.py, in our words):
// the rows go through a columnar load and axolotl's preparation (nulls
// removed, argument and parameter strings decoded); for each assistant turn
// it renders the conversation up to that turn twice, once with the turn
// replaced by a dummy {role, content: "[[dummy_message]]"} (no reasoning, no
// calls), passing real_last_index = the last message's index, and trains the
// span where the two renderings differ (first difference from the start, last
// from the end) at those offsets of the whole conversation's rendering, plus
// the end-of-turn token right after it (train_on_eos: turn). Offsets are
// characters here, tokens there.
//   node axolotl_test.mjs --family F HF.jsonl...     F: qwen3, qwen3-tokenizer, qwen25, llama31
//   node axolotl_test.mjs --self-check
// Pass: every assistant turn's trained span ends exactly at the end of its
// call (name and arguments), holds the turn's reasoning_content when it has one, covers the whole turn as rendered (at most the
// think block opening the dummy shares left out) and nothing of another turn,
// and its end-of-turn token is trained. Exit 0 = pass.
import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import { expectFailure, fail, failures, finish, readRows, reportProblems } from "./checks.mjs";
import { arrowRoundTrip, axolotlPrepare } from "./columnar.mjs";

const templateFile = (name) => readFileSync(new URL(`../templates/${name}`, import.meta.url), "utf8");
const tojson = (value) => new Template("{{ v | tojson }}").render({ v: value });
const chatmlCall = (name, args) => `<tool_call>\n{"name": "${name}", "arguments": ${tojson(args)}}\n</tool_call>`;

// The families of the recipe: the template axolotl applies (`chat_template:`),
// the assistant turn's header and end, the call markup.
const FAMILIES = {
  // chat_template: qwen3 (axolotl's template follows real_last_index)
  qwen3: { file: "chatml_reasoning.jinja", vars: { follows_real_last: true }, head: "<|im_start|>assistant\n", eot: "<|im_end|>", call: chatmlCall },
  // chat_template: tokenizer_default on a Qwen3 tokenizer (its template ignores real_last_index)
  "qwen3-tokenizer": { file: "chatml_reasoning.jinja", vars: { follows_real_last: false }, head: "<|im_start|>assistant\n", eot: "<|im_end|>", call: chatmlCall },
  qwen25: { file: "chatml_tools.jinja", vars: {}, head: "<|im_start|>assistant\n", eot: "<|im_end|>", call: chatmlCall },
  llama31: { file: "header_json_calls.jinja", vars: {}, head: "<|start_header_id|>assistant<|end_header_id|>\n\n", eot: "<|eot_id|>",
             call: (name, args) => `{"name": "${name}", "parameters": ${tojson(args)}}` },
};

function renderer(family) {
  const template = new Template(templateFile(family.file));
  return (messages, tools, realLast) =>
    template.render({ messages, tools, add_generation_prompt: false, ...(realLast === undefined ? {} : { real_last_index: realLast }), ...family.vars });
}

// axolotl's find_turn: [start, end) of turn i, or null.
function findTurn(render, turns, tools, i) {
  const realLast = turns.length - 1;
  const dummy = render([...turns.slice(0, i), { role: turns[i].role, content: "[[dummy_message]]" }], tools, realLast);
  const full = render(turns.slice(0, i + 1), tools, realLast);
  const n = Math.min(dummy.length, full.length);
  let start = 0;
  while (start < n && dummy[start] === full[start]) start++;
  let back = 0;
  while (back < n && dummy[dummy.length - 1 - back] === full[full.length - 1 - back]) back++;
  if (start === n || back === n) return null;
  const end = full.length - back;
  return end > start ? [start, end] : null;
}

// What of a turn's start may stay untrained: the part the dummy renders too
// (the last turn's think block opening, or its whole empty think block).
const SHARED_HEADS = ["", "<think>\n", "<think>\n\n</think>\n\n"];

// Where each assistant turn's body lies in the whole rendering: [from, to).
function bodies(text, family) {
  const out = [];
  for (let at = text.indexOf(family.head); at >= 0; at = text.indexOf(family.head, at + 1)) {
    const from = at + family.head.length;
    out.push([from, text.indexOf(family.eot, from)]);
  }
  return out;
}

function checkRow(row, original, family, where) {
  const render = renderer(family);
  let input;
  try {
    input = render(row.messages, row.tools);
  } catch (e) {
    return fail(where, `template raised: ${e.message}`);
  }
  const assistants = original.messages.map((m, i) => [m, i]).filter(([m]) => m.role === "assistant");
  const places = bodies(input, family);
  if (places.length !== assistants.length) return fail(where, `${places.length} assistant turns rendered for ${assistants.length}`);
  assistants.forEach(([m, index], k) => {
    const span = findTurn(render, row.messages, row.tools, index);
    const [from, to] = places[k];
    const fn = m.tool_calls[0].function;
    const call = family.call(fn.name, JSON.parse(fn.arguments));
    if (span === null) return fail(where, `turn ${k}: axolotl finds no span, nothing trained`);
    const [start, end] = span;
    const head = input.slice(from, start);
    if (end !== to || start < from || !SHARED_HEADS.includes(head)) {
      return fail(where, `turn ${k}: trains ${JSON.stringify(input.slice(start, end).slice(0, 60))}…${JSON.stringify(input.slice(start, end).slice(-40))} instead of its own turn`);
    }
    if (!input.slice(start, end).endsWith(call)) fail(where, `turn ${k}: the span does not end with its call ${call.slice(0, 80)}`);
    const reasoning = (m.reasoning_content ?? "").trim();
    if (reasoning && !input.slice(start, end).includes(reasoning)) fail(where, `turn ${k}: its reasoning is not trained (the family's export option drops or wraps it)`);
    if (!input.startsWith(family.eot, end)) fail(where, `turn ${k}: the end-of-turn token does not follow the span`);
  });
}

function run(familyName, paths) {
  const family = FAMILIES[familyName];
  if (!family) return fail(familyName, "unknown family");
  const rows = paths.flatMap((p) => readRows(p).map((r, i) => [`${p}:${i + 1}`, r]));
  if (rows.length === 0) return fail(paths.join(" "), "no rows");
  const loaded = arrowRoundTrip(rows.map(([, r]) => r));
  rows.forEach(([where, original], i) => checkRow(axolotlPrepare(loaded[i]), original, family, `${where} (${familyName})`));
  return rows.length;
}

function selfCheck() {
  const msg = (role, extra) => ({ role, content: "", reasoning_content: null, tool_calls: null, tool_call_id: null, name: null, ...extra });
  const row = (reasoning) => ({
    messages: [
      msg("system", { content: "s" }), msg("user", { content: "u" }),
      msg("assistant", { reasoning_content: reasoning, tool_calls: [{ id: "a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] }),
      msg("tool", { content: "out", tool_call_id: "a", name: "bash" }),
      msg("assistant", { reasoning_content: reasoning, tool_calls: [{ id: "b", type: "function", function: { name: "submit", arguments: "{}" } }] }),
    ],
    tools: [],
  });
  const check = (r, f) => checkRow(axolotlPrepare(arrowRoundTrip([r])[0]), r, FAMILIES[f], "self");
  const pass = (label, fn) => (expectFailure(label, fn) === null ? `${label}: rejected` : null);
  reportProblems([
    pass("qwen3 with reasoning", () => check(row("why"), "qwen3")),
    pass("qwen3 without reasoning", () => check(row(null), "qwen3")),
    pass("tokenizer default with reasoning", () => check(row("why"), "qwen3-tokenizer")),
    expectFailure("tokenizer default without reasoning shifts the span", () => check(row(null), "qwen3-tokenizer")),
    pass("llama31", () => check(row(null), "llama31")),
  ]);
}

const argv = process.argv.slice(2);
if (argv[0] === "--self-check") {
  selfCheck();
} else if (argv[0] === "--family" && argv.length >= 3) {
  const n = run(argv[1], argv.slice(2));
  if (failures.length === 0) console.log(`ok: ${n} row(s): every assistant turn trains exactly its own turn and call (axolotl, ${argv[1]})`);
} else {
  console.error("usage: see the comment at the top of axolotl_test.mjs");
  process.exit(2);
}
finish();
