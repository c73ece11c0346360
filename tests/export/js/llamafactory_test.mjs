// Acceptance test for configs/train/llamafactory-sharegpt.yaml: exported
// sharegpt rows through LLaMA-Factory's own rules, per `template:`, read from
// its source (data/template.py, formatter.py, tool_utils.py) and written here
// in our words:
// - a function_call turn is a response (trained); human and observation turns
//   are prompts (never trained, train_on_prompt off);
// - its function formatter, for templates of the base Template class (qwen3,
//   qwen, llama3, glm4), first looks for <tool_call>…</tool_call> in the value
//   and parses what is inside, else cuts the first "<think>\n…\n</think>\n\n"
//   block, parses what is left as JSON ({"name", "arguments"}) and renders the
//   block before the template's call markup; templates of the Llama2Template
//   class (mistral, ministral) pass it neither word, so the whole value must
//   be the JSON. A JSON error or a missing key stops the whole run;
// - ReasoningTemplate (qwen3) puts an empty think block in front of a
//   response that has none, trained;
// - the template's tool extractor (what its serving stack reads back) must
//   find exactly the call in the trained text.
//   node llamafactory_test.mjs --template T --think keep|drop SHAREGPT.jsonl HF.jsonl
//       HF: the hf rows of the same export (matched by task id and rollout)
//   node llamafactory_test.mjs --self-check
// Every function_call must train exactly its call (name and arguments), its
// reasoning when the export kept it, and the template's end of turn. Exit 0 = pass.
import { expectFailure, fail, failures, finish, readRows, reportProblems } from "./checks.mjs";

// json.dumps with Python's default separators and ensure_ascii=False.
function pyDumps(v) {
  if (Array.isArray(v)) return "[" + v.map(pyDumps).join(", ") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ": " + pyDumps(x)).join(", ") + "}";
  }
  return JSON.stringify(v);
}

// The calls of a JSON text as the formatter reads them; throws as it stops.
function parseCalls(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error("Invalid JSON format in function message");
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  for (const c of list) if (c === null || typeof c !== "object" || !("name" in c) || !("arguments" in c)) throw new Error("KeyError in function message");
  return list.map((c) => ({ name: c.name, args: c.arguments }));
}
const tryJson = (text) => {
  try {
    return JSON.parse(text);
  } catch (e) {
    return undefined;
  }
};
// What each extractor reads back from a response, or null when it sees no call.
const readQwen = (text) => {
  const found = [...text.matchAll(/<tool_call>([\s\S]+?)<\/tool_call>(?=\s*<tool_call>|\s*$)/g)].map((m) => tryJson(m[1].trim()));
  return found.length && found.every((c) => c && "name" in c && "arguments" in c) ? found.map((c) => ({ name: c.name, args: c.arguments })) : null;
};
const readJsonKey = (key) => (text) => {
  const v = tryJson(text.trim());
  const list = v === undefined ? null : Array.isArray(v) ? v : [v];
  return list && list.every((c) => c && "name" in c && key in c) ? list.map((c) => ({ name: c.name, args: c[key] })) : null;
};
const readGlm = (text) => {
  const at = text.indexOf("\n");
  const args = at < 0 ? undefined : tryJson(text.slice(at + 1).trim());
  return args === undefined ? null : [{ name: text.slice(0, at), args }];
};

// The templates of the recipe's families: formatter class, call markup, the
// slot text around a function turn, and the extractor.
const TEMPLATES = {
  qwen3: { words: true, reasoning: true, before: "", after: "<|im_end|>\n", read: readQwen,
           markup: (cs) => cs.map((c) => `<tool_call>\n${pyDumps({ name: c.name, arguments: c.args })}\n</tool_call>`).join("\n") },
  qwen: { words: true, reasoning: false, before: "", after: "<|im_end|>\n", read: readQwen,
          markup: (cs) => cs.map((c) => `<tool_call>\n${pyDumps({ name: c.name, arguments: c.args })}\n</tool_call>`).join("\n") },
  llama3: { words: true, reasoning: false, before: "", after: "<|eot_id|>", read: readJsonKey("parameters"),
            markup: (cs) => pyDumps(cs.length === 1 ? { name: cs[0].name, parameters: cs[0].args } : cs.map((c) => ({ name: c.name, parameters: c.args }))) },
  glm4: { words: true, reasoning: false, before: "", after: "", read: readGlm,
          markup: (cs) => `${cs[0].name}\n${pyDumps(cs[0].args)}` },
  mistral: { words: false, reasoning: false, before: "[TOOL_CALLS] ", after: "</s>", read: readJsonKey("arguments"),
             markup: (cs) => pyDumps(cs.map((c) => ({ name: c.name, arguments: c.args }))) },
};
const THINK = /<think>\n([\s\S]*?)\n<\/think>\n\n/;
const EMPTY_THINK = "<think>\n\n</think>\n\n";

// The trained text of one function_call value; throws where LLaMA-Factory stops.
function encodeFunction(value, t) {
  const call = t.words ? /<tool_call>([\s\S]*?)<\/tool_call>/.exec(value) : null;
  let body;
  if (call) {
    body = value.split(call[0]).join("") + t.markup(parseCalls(call[1]));
  } else {
    const thought = t.words ? THINK.exec(value) : null;
    const calls = parseCalls(thought ? value.split(thought[0]).join("") : value);
    body = (thought ? thought[0] : "") + t.markup(calls);
  }
  if (t.reasoning && !value.includes("<think>") && !value.includes("</think>")) body = EMPTY_THINK + body;
  return t.before + body + t.after;
}

// The converter's alternation: prompts (human/observation) at even indexes,
// responses (function_call) at odd ones, an even count.
function responses(row, where) {
  const turns = row.conversations;
  if (turns.length % 2 !== 0) fail(where, "odd turn count: the converter skips the row");
  turns.forEach((turn, i) => {
    const ok = i % 2 === 0 ? ["human", "observation"].includes(turn.from) : ["gpt", "function_call"].includes(turn.from);
    if (!ok) fail(where, `turn ${i} "${turn.from}" out of place: the converter skips the row`);
  });
  return turns.filter((turn, i) => i % 2 === 1);
}

function checkRow(row, hf, t, keep, where) {
  const assistants = hf.messages.filter((m) => m.role === "assistant");
  const answers = responses(row, where);
  if (answers.length !== assistants.length) return fail(where, `${answers.length} responses for ${assistants.length} assistant turns`);
  answers.forEach((turn, i) => {
    const m = assistants[i], fn = m.tool_calls[0].function;
    const want = [{ name: fn.name, args: JSON.parse(fn.arguments) }];
    let trained;
    try {
      trained = encodeFunction(turn.value, t);
    } catch (e) {
      return fail(where, `function_call ${i}: LLaMA-Factory stops the run (${e.message})`);
    }
    const thought = keep ? ((m.reasoning_content ?? "").trim() || (m.content ?? "").trim()) : "";
    const block = thought ? `<think>\n${thought}\n</think>\n\n` : t.reasoning ? EMPTY_THINK : "";
    const expected = t.before + block + t.markup(want) + t.after;
    if (trained !== expected) fail(where, `function_call ${i} trains ${JSON.stringify(trained.slice(0, 90))}… not ${JSON.stringify(expected.slice(0, 90))}…`);
    const read = t.read(trained.slice(t.before.length, trained.length - t.after.length));
    if (read === null || pyDumps(read) !== pyDumps(want)) fail(where, `function_call ${i}: the template's extractor does not read the call back`);
  });
}

function run(template, think, sharegptPath, hfPath) {
  const t = TEMPLATES[template];
  if (!t) return fail(template, "unknown template");
  // The hf row of the same rollout (a sharegpt export may leave out rows hf keeps).
  const hf = new Map(readRows(hfPath).map((r) => [`${r.metadata.task_id}/${r.metadata.rollout}`, r]));
  const rows = readRows(sharegptPath);
  if (rows.length === 0) return fail(sharegptPath, "no rows");
  rows.forEach((r, i) => {
    const where = `${sharegptPath}:${i + 1} (${template})`;
    const twin = hf.get(`${r.metadata.task_id}/${r.metadata.rollout}`);
    if (twin) checkRow(r, twin, t, think === "keep", where);
    else fail(where, "no hf row of the same rollout");
  });
  return rows.length;
}

function selfCheck() {
  const call = '{"name": "bash", "arguments": {"command": "ls"}}';
  const hf = (reasoning) => ({ messages: [{ role: "assistant", reasoning_content: reasoning, content: "", tool_calls: [{ function: { name: "bash", arguments: '{"command":"ls"}' } }] }] });
  const row = (value) => ({ conversations: [{ from: "human", value: "u" }, { from: "function_call", value }] });
  const kept = row(`<think>\nr\n</think>\n\n${call}`), bare = row(call);
  const nested = row(`<think>\nr <tool_call>{"name": "x"}</tool_call>\n</think>\n\n${call}`);
  const closing = row(`<think>\nr\n</think>\n\nmore\n</think>\n\n${call}`);
  const pass = (label, fn) => (expectFailure(label, fn) === null ? `${label}: rejected` : null);
  reportProblems([
    pass("qwen3 keeps the block", () => checkRow(kept, hf("r"), TEMPLATES.qwen3, true, "self")),
    pass("qwen3 without reasoning", () => checkRow(bare, hf(null), TEMPLATES.qwen3, true, "self")),
    pass("mistral without a block", () => checkRow(bare, hf("r"), TEMPLATES.mistral, false, "self")),
    expectFailure("mistral stops on a think block", () => checkRow(kept, hf("r"), TEMPLATES.mistral, true, "self")),
    expectFailure("llama3 cannot read a call behind a think block", () => checkRow(kept, hf("r"), TEMPLATES.llama3, true, "self")),
    expectFailure("glm4 cannot read a call behind a think block", () => checkRow(kept, hf("r"), TEMPLATES.glm4, true, "self")),
    expectFailure("tool-call markup in the reasoning", () => checkRow(nested, hf('r <tool_call>{"name": "x"}</tool_call>'), TEMPLATES.qwen3, true, "self")),
    expectFailure("a bare </think> line in the reasoning", () => checkRow(closing, hf("r\n</think>\n\nmore"), TEMPLATES.qwen, true, "self")),
    expectFailure("a reasoning block dropped", () => checkRow(bare, hf("r"), TEMPLATES.qwen, true, "self")),
  ]);
}

const argv = process.argv.slice(2);
if (argv[0] === "--self-check") {
  selfCheck();
} else if (argv[0] === "--template" && argv[2] === "--think" && argv.length === 6) {
  const n = run(argv[1], argv[3], argv[4], argv[5]);
  if (failures.length === 0) console.log(`ok: ${n} row(s): every function_call trains exactly its call under LLaMA-Factory's ${argv[1]} template`);
} else {
  console.error("usage: see the comment at the top of llamafactory_test.mjs");
  process.exit(2);
}
finish();
