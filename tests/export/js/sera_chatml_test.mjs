// Acceptance test for `sera` export records: renders each record through a
// ChatML template (written for this test, in the shape of axolotl's `chatml`)
// and applies axolotl's `message_field_training: train` rule: a turn is
// trained on when its `train` key is true. Checks that only assistant turns
// are trained on, that each trained turn is non-empty and is exactly a think
// block, a blank line and one <tool_call> holding Python-json.dumps-style
// JSON, and that every other turn is a system or user turn. Usage:
//   node sera_chatml_test.mjs T1.jsonl [T2.jsonl ...]   exported sera records (must pass)
//   node sera_chatml_test.mjs --self-check              proves the checks can fail
// Exit status 0 = pass, 1 = a check failed (each failure is printed).
import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";

// Each turn: start marker and role, newline, content, end marker, newline.
const CHATML = `
{%- for message in messages -%}
{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\n' }}{%- endif -%}`;

const TURN = /^<think>\n[\s\S]*\n<\/think>\n\n<tool_call>\n(.*)\n<\/tool_call>$/;

const failures = [];
const fail = (where, what) => failures.push(`${where}: ${what}`);

// JSON as Python's json.dumps writes it by default: ", " and ": ", every
// character outside printable ASCII as \uXXXX (UTF-16 units, lower-case hex).
function pythonDumps(value) {
  if (Array.isArray(value)) return "[" + value.map(pythonDumps).join(", ") + "]";
  if (value !== null && typeof value === "object") {
    return "{" + Object.entries(value).map(([k, v]) => pythonDumps(k) + ": " + pythonDumps(v)).join(", ") + "}";
  }
  if (typeof value !== "string") return JSON.stringify(value);
  const named = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    const code = value.charCodeAt(i);
    if (named[ch] !== undefined) out += named[ch];
    else if (code < 0x20 || code > 0x7e) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

// The rendered text of each message: the render of messages[0..i] minus the
// render of messages[0..i-1] (the template renders turn by turn).
function turnSpans(record, where) {
  const template = new Template(CHATML);
  const spans = [];
  let before = "";
  for (let i = 1; i <= record.messages.length; i++) {
    const text = template.render({ messages: record.messages.slice(0, i), add_generation_prompt: false });
    if (!text.startsWith(before)) {
      fail(where, `turn ${i - 1} changes the rendering of earlier turns`);
      return null;
    }
    spans.push(text.slice(before.length));
    before = text;
  }
  return spans;
}

function checkTrainedTurn(content, where) {
  if (content.length === 0) return fail(where, "a trained turn is empty");
  const m = TURN.exec(content);
  if (m === null) return fail(where, "not <think>\\n…\\n</think>\\n\\n<tool_call>\\n{JSON}\\n</tool_call>");
  let call;
  try {
    call = JSON.parse(m[1]);
  } catch (e) {
    return fail(where, `tool call is not JSON: ${e.message}`);
  }
  if (Object.keys(call).join(",") !== "name,arguments") fail(where, "tool call keys are not name, arguments");
  if (pythonDumps(call) !== m[1]) fail(where, "tool call JSON is not written as Python's json.dumps writes it");
}

function checkRecord(record, where) {
  const spans = turnSpans(record, where);
  if (spans === null) return 0;
  let trained = 0;
  record.messages.forEach((message, i) => {
    const at = `${where} message ${i}`;
    if (!["system", "user", "assistant"].includes(message.role)) fail(at, `role ${message.role}`);
    if (typeof message.train !== "boolean") return fail(at, "no boolean train key");
    if (message.train !== (message.role === "assistant")) fail(at, `train is ${message.train} on a ${message.role} turn`);
    if (!message.train) return;
    const expected = `<|im_start|>assistant\n${message.content}<|im_end|>\n`;
    if (spans[i] !== expected) fail(at, "the trained turn does not render as its content alone");
    checkTrainedTurn(message.content, at);
    trained++;
  });
  if (trained === 0) fail(where, "nothing to train on");
  if (record.messages[0]?.role !== "system") fail(where, "does not start with the system turn");
  return trained;
}

function checkFiles(paths) {
  let n = 0;
  for (const path of paths) {
    const lines = readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0);
    if (lines.length === 0) fail(path, "no records");
    lines.forEach((line, i) => {
      checkRecord(JSON.parse(line), `${path}:${i + 1}`);
      n++;
    });
  }
  return n;
}

function selfCheck() {
  const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls \\u00e9"}}\n</tool_call>';
  const good = {
    messages: [
      { role: "system", content: "s", train: false },
      { role: "user", content: "u", train: false },
      { role: "assistant", content: "<think>\nr\n</think>\n\n" + call, train: true },
      { role: "user", content: "<tool_response>\nx\n</tool_response>", train: false },
    ],
  };
  const clone = () => JSON.parse(JSON.stringify(good));
  const broken = (fn) => {
    const r = clone();
    fn(r);
    return r;
  };
  const cases = {
    "tool role": broken((r) => { r.messages[3].role = "tool"; }),
    "missing train key": broken((r) => { delete r.messages[1].train; }),
    "user turn trained": broken((r) => { r.messages[1].train = true; }),
    "assistant not trained": broken((r) => { r.messages[2].train = false; }),
    "empty assistant turn": broken((r) => { r.messages[2].content = ""; }),
    "no tool call": broken((r) => { r.messages[2].content = "<think>\nr\n</think>\n\nplain"; }),
    "one newline after think": broken((r) => { r.messages[2].content = "<think>\nr\n</think>\n" + call; }),
    "compact JSON": broken((r) => { r.messages[2].content = r.messages[2].content.replace('"name": ', '"name":'); }),
    "non-ASCII unescaped": broken((r) => { r.messages[2].content = r.messages[2].content.replace("\\u00e9", "é"); }),
  };
  const problems = [];
  if (checkRecord(good, "good") !== 1 || failures.length > 0) problems.push("good record: rejected");
  failures.length = 0;
  for (const [label, record] of Object.entries(cases)) {
    checkRecord(record, label);
    if (failures.length === 0) problems.push(`${label}: not detected`);
    failures.length = 0;
  }
  for (const p of problems) failures.push(`self-check ${p}`);
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === "--self-check") {
  selfCheck();
  if (failures.length === 0) console.log("ok: every broken sera record was detected");
} else if (args.length >= 1) {
  const n = checkFiles(args);
  if (failures.length === 0) console.log(`ok: ${n} sera record(s) train on assistant turns only, each a think block and one call`);
} else {
  console.error("usage: node sera_chatml_test.mjs T1.jsonl [T2.jsonl ...] | --self-check");
  process.exit(2);
}
for (const f of failures.slice(0, 50)) console.error(`FAIL ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
