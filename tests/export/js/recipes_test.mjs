// Acceptance test for the trainer recipes of configs/train/: follows each
// recipe's path from the exported rows to rendered text, with templates
// written for this test in the shape of the model families' real ones.
//   node recipes_test.mjs --axolotl-hf HF.jsonl...
//       axolotl, chat_template: tokenizer_default: the rows through a columnar
//       (Arrow-like) round trip, axolotl's preparation (null values removed,
//       argument and parameter strings decoded), a Qwen-shaped template.
//   node recipes_test.mjs --arrow HF.jsonl           the rows after the columnar round trip (stdout)
//   node recipes_test.mjs --trl PREPARED.jsonl HF.jsonl
//       TRL: rows prepared by configs/train/trl_sft.py --prepare-only (from the
//       --arrow output), a Llama-3.1-shaped template.
//   node recipes_test.mjs --llamafactory SHAREGPT.jsonl HF.jsonl
//       LLaMA-Factory: its sharegpt converter's documented rules applied to
//       every row, compared with the hf rows of the same export: nothing dropped.
//   node recipes_test.mjs --self-check                proves the checks can fail
// In each rendering check every assistant turn must contain its call with
// exactly the called tool's arguments (no other tool's keys, no nulls).
// Exit status 0 = pass, 1 = a check failed (each failure is printed).
import { Template } from "@huggingface/jinja";
import { expectFailure, fail, failures, finish, readRows, reportProblems } from "./checks.mjs";
import { arrowRoundTrip, axolotlPrepare, isObject } from "./columnar.mjs";

// A template shaped like the families' real ones: tools as tojson lines,
// reasoning in a think block, then each call as `callLine` renders it
// (`call` is the call's function).
const shaped = (callLine) => `
{%- if tools %}<tools>{% for tool in tools %}{{ "\\n" }}{{ tool | tojson }}{% endfor %}</tools>{% endif -%}
{%- for message in messages -%}
<|{{ message.role }}|>
{%- if message.reasoning_content is string %}<think>{{ message.reasoning_content }}</think>{% endif -%}
{{ message.content }}
{%- if message.tool_calls -%}
{%- for call in message.tool_calls -%}
{%- if call.function is defined %}{% set call = call.function %}{% endif -%}
${callLine}
{%- endfor -%}
{%- endif -%}
<|end|>
{%- endfor -%}`;
// Qwen2.5/Qwen3: {"name": ..., "arguments": tojson} inside <tool_call>.
const QWEN_SHAPED = shaped(`<tool_call>{"name": "{{ call.name }}", "arguments": {{ call.arguments | tojson }}}</tool_call>`);
// Llama 3.1: {"name": ..., "parameters": tojson}.
const LLAMA_SHAPED = shaped(`{"name": "{{ call.name }}", "parameters": {{ call.arguments | tojson }}}`);

const tojson = (value) => new Template("{{ v | tojson }}").render({ v: value });
// The calls of an exported hf row with their arguments as objects.
const callsOf = (hfRow) =>
  hfRow.messages.flatMap((m) => m.tool_calls ?? []).map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) }));

// Every call of `original` rendered, in order, with exactly its own arguments.
function checkRendered(text, original, key, where) {
  let from = 0;
  callsOf(original).forEach((call, i) => {
    const want = `{"name": "${call.name}", "${key}": ${tojson(call.args)}}`;
    const at = text.indexOf(want, from);
    if (at < 0) return fail(where, `call ${i} (${call.name}) is not rendered with exactly its arguments ${JSON.stringify(call.args)}`);
    from = at + want.length;
  });
  if (/"(arguments|parameters)": \{[^}]*null/.test(text)) fail(where, "a rendered call holds a null argument");
}

function render(source, messages, tools, where) {
  try {
    return new Template(source).render({ messages, tools });
  } catch (e) {
    fail(where, `template raised: ${e.message}`);
    return "";
  }
}

function axolotlHf(paths) {
  const rows = paths.flatMap((p) => readRows(p).map((r, i) => [`${p}:${i + 1}`, r]));
  if (rows.length === 0) return fail(paths.join(" "), "no rows");
  const loaded = arrowRoundTrip(rows.map(([, r]) => r));
  rows.forEach(([where, original], i) => {
    const row = axolotlPrepare(loaded[i]);
    checkRendered(render(QWEN_SHAPED, row.messages, row.tools, where), original, "arguments", where);
  });
  return rows.length;
}

function trl(preparedPath, hfPath) {
  const prepared = readRows(preparedPath), original = readRows(hfPath);
  if (prepared.length !== original.length || prepared.length === 0) return fail(preparedPath, `${prepared.length} prepared vs ${original.length} rows`);
  prepared.forEach((row, i) => {
    const where = `${preparedPath}:${i + 1}`;
    if (!row.tools.every((t) => isObject(t.function.parameters))) fail(where, "a tool's parameters are not decoded");
    checkRendered(render(LLAMA_SHAPED, row.messages, row.tools, where), original[i], "parameters", where);
  });
  return prepared.length;
}

// LLaMA-Factory's sharegpt rules: optional leading system turn or `system`
// column; human/observation at even indexes, gpt/function_call at odd ones;
// an even count; a function_call value is an optional <think>…</think> block
// then {"name", "arguments"} JSON; `tools` a JSON string of a list.
const ODD = ["human", "observation"], EVEN = ["gpt", "function_call"];
function checkSharegptRow(row, hf, where) {
  const turns = row.conversations;
  if (!Array.isArray(turns) || turns.length % 2 !== 0) return fail(where, "the turn count is odd");
  turns.forEach((t, i) => {
    if (!(i % 2 === 0 ? ODD : EVEN).includes(t.from)) fail(where, `turn ${i} is "${t.from}" at an ${i % 2 === 0 ? "odd" : "even"} position`);
  });
  let tools;
  try {
    tools = JSON.parse(row.tools);
  } catch (e) {
    return fail(where, "tools is not a JSON string");
  }
  if (!Array.isArray(tools) || tools.length !== hf.tools.length) fail(where, "tools do not list every tool");
  if (row.system !== hf.messages[0].content) fail(where, "the system prompt is not the system column");
  const calls = callsOf(hf), results = hf.messages.filter((m) => m.role === "tool");
  const fc = turns.filter((t) => t.from === "function_call"), obs = turns.filter((t) => t.from === "observation");
  if (fc.length !== calls.length) return fail(where, `${fc.length} function_call turns for ${calls.length} calls`);
  if (obs.length !== results.length) fail(where, `${obs.length} observations for ${results.length} tool results`);
  obs.forEach((o, i) => { if (o.value !== results[i].content) fail(where, `observation ${i} differs from the tool result`); });
  if (turns[0].value !== hf.messages[1].content) fail(where, "the instance prompt is not the first human turn");
  const assistants = hf.messages.filter((m) => m.role === "assistant");
  fc.forEach((t, i) => {
    const thought = /<think>([\s\S]*?)<\/think>/.exec(t.value);
    let call;
    try {
      call = JSON.parse(thought ? t.value.replace(thought[0], "") : t.value);
    } catch (e) {
      return fail(where, `function_call ${i} is not JSON after its think block`);
    }
    if (call.name !== calls[i].name || JSON.stringify(call.arguments) !== JSON.stringify(calls[i].args)) fail(where, `function_call ${i} differs from the call`);
    const reasoning = (assistants[i].reasoning_content ?? assistants[i].content ?? "").trim();
    if (reasoning && (!thought || thought[1].trim() !== reasoning)) fail(where, `function_call ${i} lost the turn's reasoning`);
  });
}
function llamafactory(sharegptPath, hfPath) {
  const rows = readRows(sharegptPath), hf = readRows(hfPath);
  if (rows.length !== hf.length || rows.length === 0) return fail(sharegptPath, `${rows.length} rows vs ${hf.length} hf`);
  rows.forEach((r, i) => checkSharegptRow(r, hf[i], `${sharegptPath}:${i + 1}`));
  return rows.length;
}

function selfCheck() {
  const hfRow = (calls) => ({
    messages: [
      { role: "system", content: "s", reasoning_content: null, tool_calls: null, tool_call_id: null, name: null },
      { role: "user", content: "u", reasoning_content: null, tool_calls: null, tool_call_id: null, name: null },
      ...calls.flatMap(([name, args], i) => [
        { role: "assistant", content: "", reasoning_content: "r" + i, tool_call_id: null, name: null,
          tool_calls: [{ id: "c" + i, type: "function", function: { name, arguments: args } }] },
        { role: "tool", content: "o" + i, reasoning_content: null, tool_calls: null, tool_call_id: "c" + i, name },
      ]),
    ],
    tools: [{ type: "function", function: { name: "bash", description: "d", parameters: "{\"type\":\"object\"}" } },
            { type: "function", function: { name: "editor", description: "d", parameters: "{\"type\":\"object\"}" } }],
  });
  const good = [hfRow([["bash", "{\"command\":\"ls\"}"]]), hfRow([["editor", "{\"path\":\"/a\"}"]])];
  const objects = good.map((r) => JSON.parse(JSON.stringify(r)));
  for (const r of objects) for (const m of r.messages) for (const c of m.tool_calls ?? []) c.function.arguments = JSON.parse(c.function.arguments);
  const renderRows = (rows, prepare, source, key) => {
    const loaded = arrowRoundTrip(rows);
    rows.forEach((r, i) => {
      const p = prepare(loaded[i]);
      checkRendered(render(source, p.messages, p.tools, "self"), good[i], key, "self");
    });
  };
  // Object arguments through the round trip gain the other tool's keys as nulls.
  const noPrep = (r) => r;
  const sg = { conversations: [{ from: "human", value: "u" }, { from: "function_call", value: "<think>\nr0\n</think>\n\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}" }],
               system: "s", tools: JSON.stringify([{ name: "bash" }, { name: "editor" }]) };
  const hfSg = hfRow([["bash", "{\"command\":\"ls\"}"]]);
  hfSg.messages.pop();
  const swapped = { ...sg, conversations: [sg.conversations[1], sg.conversations[0]] };
  const noThink = { ...sg, conversations: [sg.conversations[0], { from: "function_call", value: "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}" }] };
  const problems = [
    expectFailure("good rows", () => renderRows(good, axolotlPrepare, QWEN_SHAPED, "arguments")) === null ? "good rows: rejected" : null,
    expectFailure("object arguments, foreign nulls", () => renderRows(objects, noPrep, QWEN_SHAPED, "arguments")),
    expectFailure("string arguments not decoded", () => renderRows(good, noPrep, LLAMA_SHAPED, "parameters")),
    expectFailure("good sharegpt", () => checkSharegptRow(sg, hfSg, "self")) === null ? "good sharegpt: rejected" : null,
    expectFailure("sharegpt roles swapped", () => checkSharegptRow(swapped, hfSg, "self")),
    expectFailure("sharegpt reasoning lost", () => checkSharegptRow(noThink, hfSg, "self")),
  ];
  reportProblems(problems);
}

const argv = process.argv.slice(2);
if (argv[0] === "--self-check") {
  selfCheck();
} else if (argv[0] === "--axolotl-hf" && argv.length >= 2) {
  const n = axolotlHf(argv.slice(1));
  if (failures.length === 0) console.log(`ok: ${n} row(s) render every call with exactly its arguments (axolotl path)`);
} else if (argv[0] === "--arrow" && argv.length === 2) {
  for (const r of arrowRoundTrip(readRows(argv[1]))) console.log(JSON.stringify(r));
} else if (argv[0] === "--trl" && argv.length === 3) {
  const n = trl(argv[1], argv[2]);
  if (failures.length === 0) console.log(`ok: ${n} row(s) render every call with exactly its arguments (TRL path)`);
} else if (argv[0] === "--llamafactory" && argv.length === 3) {
  const n = llamafactory(argv[1], argv[2]);
  if (failures.length === 0) console.log(`ok: ${n} sharegpt row(s) keep every turn, call and reasoning`);
} else {
  console.error("usage: see the comment at the top of recipes_test.mjs");
  process.exit(2);
}
finish();
