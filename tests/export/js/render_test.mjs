// Acceptance test for `hf` export records: checks that every tool call's
// `arguments` is a JSON-object string (one column type for a columnar loader),
// renders every record, after the documented decoding of those strings,
// through chat templates written for this test (they use the constructs real
// model templates apply to tool calls), and checks that all rows of T1 and T2
// share one schema. Usage:
//   node render_test.mjs T1.jsonl T2.jsonl     exported hf records (must pass)
//   node render_test.mjs --self-check          proves the checks can fail
//   node render_test.mjs --compare-hermes HF.jsonl HERMES.jsonl
//                                              hermes text = hf rendered by a hermes-style template
//   node render_test.mjs --compare-xml HF.jsonl XML.jsonl
//                                              xml text = hf rendered by a Qwen3-Coder-style template
// Exit status 0 = pass, 1 = a check failed (each failure is printed).
import { Template } from "@huggingface/jinja";
import { expectFailure, fail, failures, finish, readRows, reportProblems } from "./checks.mjs";

// Calls rendered with `arguments|tojson` (and an `is string` pass-through, as
// templates do that accept both shapes), reasoning only when it is a string.
const TOJSON_TEMPLATE = `
{%- for message in messages -%}
{%- if message.role == "assistant" -%}
[assistant]
{%- if message.reasoning_content is string %}<reasoning>{{ message.reasoning_content }}</reasoning>{% endif -%}
{{ message.content }}
{%- for call in message.tool_calls -%}
<call>{"name": {{ call.function.name | tojson }}, "arguments": {{ call.function.arguments | tojson }}}</call>
{%- endfor -%}
{%- elif message.role == "tool" -%}
[tool {{ message.name }}]{{ message.content }}
{%- else -%}
[{{ message.role }}]{{ message.content }}
{%- endif -%}
{%- endfor -%}`;

// Calls rendered key by key with `arguments|items`; a tool message without a
// name is an error, as in templates that label each tool result.
const ITEMS_TEMPLATE = `
{%- for message in messages -%}
{%- if message.role == "assistant" -%}
[assistant]{{ message.content }}
{%- for call in message.tool_calls -%}
<fn {{ call.function.name }}>
{%- for key, value in call.function.arguments | items -%}
<arg {{ key }}>{% if value is string %}{{ value }}{% else %}{{ value | tojson }}{% endif %}</arg>
{%- endfor -%}
</fn>
{%- endfor -%}
{%- elif message.role == "tool" -%}
{%- if message.name is not defined or message.name is none -%}
{{ raise_exception("a tool message has no name") }}
{%- endif -%}
[tool {{ message.name }} {{ message.tool_call_id }}]{{ message.content }}
{%- else -%}
[{{ message.role }}]{{ message.content }}
{%- endif -%}
{%- endfor -%}`;


// The documented step before templating an hf record: each call's
// `arguments` string decoded into its object.
function decoded(record) {
  const copy = JSON.parse(JSON.stringify(record));
  for (const m of copy.messages) {
    for (const call of m.tool_calls ?? []) {
      if (typeof call.function.arguments === "string") call.function.arguments = JSON.parse(call.function.arguments);
    }
  }
  return copy;
}

// Every call's arguments, as exported, is a string holding one JSON object.
function checkArgumentStrings(record, where) {
  record.messages.flatMap((m) => m.tool_calls ?? []).forEach((call, i) => {
    const args = call.function.arguments;
    if (typeof args !== "string") return fail(where, `call ${i} arguments are ${typeof args}, not a JSON string`);
    let parsed;
    try {
      parsed = JSON.parse(args);
    } catch (e) {
      return fail(where, `call ${i} arguments are not JSON: ${args}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) fail(where, `call ${i} arguments are not an object`);
  });
}

const readRecords = readRows;

function render(source, record) {
  return new Template(source).render({ messages: record.messages, tools: record.tools });
}

const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Renders `record` through `source` and returns, per tool call of the record,
// the text `pattern` captured; null (after reporting) when rendering raised or
// the count of captured blocks differs from the count of calls.
function renderedCalls(source, name, pattern, record, where) {
  let out;
  try {
    out = render(source, record);
  } catch (e) {
    fail(where, `${name} template raised: ${e.message}`);
    return null;
  }
  const calls = record.messages.flatMap((m) => m.tool_calls ?? []);
  const blocks = [...out.matchAll(pattern)].map((m) => m[1]);
  if (blocks.length !== calls.length) {
    fail(where, `${calls.length} calls, ${blocks.length} ${name} blocks rendered`);
    return null;
  }
  return { calls, blocks };
}

// Every call must appear once, its arguments an object equal to the record's.
function checkTojson(record, where) {
  const found = renderedCalls(TOJSON_TEMPLATE, "tojson", /<call>(.*?)<\/call>/gs, record, where);
  if (found === null) return;
  const { calls, blocks: rendered } = found;
  calls.forEach((call, i) => {
    let parsed;
    try {
      parsed = JSON.parse(rendered[i]);
    } catch (e) {
      return fail(where, `rendered call ${i} is not JSON: ${rendered[i]}`);
    }
    const args = parsed.arguments;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return fail(where, `call ${i} arguments render as ${typeof args}, not an object: ${rendered[i]}`);
    }
    const want = typeof call.function.arguments === "string" ? null : call.function.arguments;
    if (!sameJson(args, want)) fail(where, `call ${i} arguments differ: ${JSON.stringify(args)}`);
  });
}

function checkItems(record, where) {
  const found = renderedCalls(ITEMS_TEMPLATE, "items", /<fn [^>]*>(.*?)<\/fn>/gs, record, where);
  if (found === null) return;
  const { calls, blocks } = found;
  calls.forEach((call, i) => {
    const keys = [...blocks[i].matchAll(/<arg ([^>]*)>/g)].map((m) => m[1]);
    if (!sameJson(keys, Object.keys(call.function.arguments))) fail(where, `call ${i} renders keys ${keys}`);
  });
}

// The shape of a value for the schema check: objects by key set, arrays by
// the merged shape of their elements; null stands for "absent" and merges
// with any shape. Tool-call argument objects are opaque (their keys belong to
// the tool called).
function shape(value, path) {
  if (value === null) return null;
  if (Array.isArray(value)) {
    let el = null;
    for (const v of value) el = merge(el, shape(v, path + "[]"), path + "[]");
    return { array: el };
  }
  if (typeof value === "object") {
    if (path.endsWith(".function.arguments")) return "object";
    const keys = {};
    for (const k of Object.keys(value).sort()) keys[k] = shape(value[k], path + "." + k);
    return { object: keys };
  }
  return typeof value;
}

function merge(a, b, path) {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === "string" || typeof b === "string") {
    if (a !== b) throw new Error(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    return a;
  }
  if ("array" in a && "array" in b) return { array: merge(a.array, b.array, path + "[]") };
  if ("object" in a && "object" in b) {
    const ka = Object.keys(a.object), kb = Object.keys(b.object);
    if (!sameJson(ka, kb)) throw new Error(`${path}: keys [${ka}] vs [${kb}]`);
    const out = {};
    for (const k of ka) out[k] = merge(a.object[k], b.object[k], path + "." + k);
    return { object: out };
  }
  throw new Error(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

function checkSchema(rows) {
  let schema = null;
  for (const [where, record] of rows) {
    try {
      schema = merge(schema, shape(record, "$"), "$");
    } catch (e) {
      fail(where, `schema differs from earlier rows at ${e.message}`);
    }
  }
}

function checkFiles(paths) {
  const rows = [];
  for (const path of paths) readRecords(path).forEach((r, i) => rows.push([`${path}:${i + 1}`, r]));
  if (rows.length === 0) fail(paths.join(" "), "no records");
  for (const [where, record] of rows) {
    checkArgumentStrings(record, where);
    checkTojson(decoded(record), where);
    checkItems(decoded(record), where);
  }
  checkSchema(rows);
  return rows.length;
}

// How both turn templates below end: tool turns and every other role.
const OTHER_TURNS = `
{%- elif message.role == "tool" -%}
<tool_response>{{ "\n" }}{{ message.content }}{{ "\n" }}</tool_response>
{%- else -%}
{{ message.content }}
{%- endif -%}`;

// The text formats against templates of the same family: each hf record,
// rendered turn by turn, must give the text the hermes export wrote.
const HERMES_TURN = `
{%- if message.role == "assistant" -%}
{%- if message.content %}{{ message.content }}{{ "\n" }}{% endif -%}
{%- for call in message.tool_calls -%}
<tool_call>{{ "\n" }}{"name": {{ call.function.name | tojson }}, "arguments": {{ call.function.arguments | tojson }}}{{ "\n" }}</tool_call>
{%- endfor -%}`
  + OTHER_TURNS;
const TOOL_LINES = `{%- for tool in tools -%}{% if not loop.first %}{{ "\n" }}{% endif %}{{ tool | tojson }}{%- endfor -%}`;

function compareHermes(hfPath, hermesPath) {
  const hf = readRecords(hfPath).map(decoded), text = readRecords(hermesPath);
  if (hf.length !== text.length || hf.length === 0) return fail(hermesPath, `${text.length} records vs ${hf.length} hf`);
  hf.forEach((rec, r) => {
    const where = `${hermesPath}:${r + 1}`;
    const tools = rec.tools.map((t) => ({ ...t, function: { ...t.function, parameters: JSON.parse(t.function.parameters) } }));
    const toolLines = new Template(TOOL_LINES).render({ tools });
    if (!text[r].messages[0].content.includes(toolLines)) fail(where, "system turn does not list the tools as tojson lines");
    rec.messages.forEach((m, i) => {
      if (i === 0) return;
      const want = new Template(HERMES_TURN).render({ message: m });
      const got = text[r].messages[i].content;
      if (want !== got) fail(where, `message ${i} differs:\n  template: ${JSON.stringify(want).slice(0, 300)}\n  export:   ${JSON.stringify(got).slice(0, 300)}`);
    });
  });
}

// Qwen3-Coder-style layout: each tool a <function> block (name, description,
// one <parameter> block per property with its schema fields, then the
// required list), each call a <function=NAME> block with one <parameter=KEY>
// block per argument taken from `arguments|items`: strings printed as they
// are, every other value through `tojson`.
const XML_TOOLS = `
{%- for tool in tools -%}
{%- if not loop.first %}{{ "\n" }}{% endif -%}
{%- set fn = tool.function -%}
<function>{{ "\n" }}<name>{{ fn.name }}</name>{{ "\n" }}
{%- if fn.description is string %}<description>{{ fn.description }}</description>{{ "\n" }}{% endif -%}
<parameters>{{ "\n" }}
{%- if fn.parameters.properties is mapping -%}
{%- for pname, pschema in fn.parameters.properties | items -%}
<parameter>{{ "\n" }}<name>{{ pname }}</name>{{ "\n" }}
{%- if pschema is mapping -%}
{%- for field, fvalue in pschema | items -%}
<{{ field }}>{% if fvalue is string %}{{ fvalue }}{% else %}{{ fvalue | tojson }}{% endif %}</{{ field }}>{{ "\n" }}
{%- endfor -%}
{%- endif -%}
</parameter>{{ "\n" }}
{%- endfor -%}
{%- endif -%}
{%- if fn.parameters.required is defined %}<required>{{ fn.parameters.required | tojson }}</required>{{ "\n" }}{% endif -%}
</parameters>{{ "\n" }}</function>
{%- endfor -%}`;
// An assistant turn: its text trimmed, then a blank line before the call.
const XML_TURN = `
{%- if message.role == "assistant" -%}
{%- if message.content | trim %}{{ message.content | trim }}{{ "\n\n" }}{% endif -%}
{%- for call in message.tool_calls -%}
<tool_call>{{ "\n" }}<function={{ call.function.name }}>{{ "\n" }}
{%- for key, value in call.function.arguments | items -%}
<parameter={{ key }}>{{ "\n" }}{% if value is string %}{{ value }}{% else %}{{ value | tojson }}{% endif %}{{ "\n" }}</parameter>{{ "\n" }}
{%- endfor -%}
</function>{{ "\n" }}</tool_call>
{%- endfor -%}`
  + OTHER_TURNS;

// The tools of an hf record with their parameter schemas as objects.
const parsedTools = (rec) =>
  rec.tools.map((t) => ({ ...t, function: { ...t.function, parameters: JSON.parse(t.function.parameters) } }));

// Same conversation, same messages: the text record's roles follow the
// template family (tool results are user turns) and every turn after the
// system turn equals the template's rendering of the hf message.
function compareText(hf, text, textPath, turnTemplate, toolsTemplate, toolsLabel) {
  if (hf.length !== text.length || hf.length === 0) return fail(textPath, `${text.length} records vs ${hf.length} hf`);
  hf.forEach((rec, r) => {
    const where = `${textPath}:${r + 1}`;
    const got = text[r].messages;
    if (got.length !== rec.messages.length) return fail(where, `${got.length} messages vs ${rec.messages.length} hf`);
    if ("tools" in text[r]) fail(where, "a text format record also has a tools column");
    const toolsText = new Template(toolsTemplate).render({ tools: parsedTools(rec) });
    if (toolsText.length === 0 || !got[0].content.includes(toolsText)) fail(where, `system turn does not list the tools as ${toolsLabel}`);
    rec.messages.forEach((m, i) => {
      const role = m.role === "tool" ? "user" : m.role;
      if (got[i].role !== role) fail(where, `message ${i} has role ${got[i].role}, template turn is ${role}`);
      if (i === 0) return;
      const want = new Template(turnTemplate).render({ message: m });
      if (want !== got[i].content) fail(where, `message ${i} differs:\n  template: ${JSON.stringify(want).slice(0, 300)}\n  export:   ${JSON.stringify(got[i].content).slice(0, 300)}`);
    });
  });
}

const compareXmlRecords = (hf, xml, where) => compareText(hf, xml, where, XML_TURN, XML_TOOLS, "<function> blocks");
const compareXml = (hfPath, xmlPath) => compareXmlRecords(readRecords(hfPath).map(decoded), readRecords(xmlPath), xmlPath);

// Each check must reject a record that breaks its rule.
function selfCheck() {
  const good = {
    messages: [
      { role: "system", content: "s", reasoning_content: null, tool_calls: null, tool_call_id: null, name: null },
      { role: "user", content: "u", reasoning_content: null, tool_calls: null, tool_call_id: null, name: null },
      {
        role: "assistant", content: "", reasoning_content: "r", tool_call_id: null, name: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: { command: "ls" } } }],
      },
      { role: "tool", content: "x", reasoning_content: null, tool_calls: null, tool_call_id: "c1", name: "bash" },
    ],
    tools: [],
    metadata: { run: "r", soft_verification: null },
  };
  const clone = () => JSON.parse(JSON.stringify(good));
  const stringArgs = clone();
  stringArgs.messages[2].tool_calls[0].function.arguments = '{"command":"ls"}';
  const noName = clone();
  noName.messages[3].name = null;
  const t2 = clone();
  t2.metadata.soft_verification = { f1: 0.5 };
  const missingKey = clone();
  delete missingKey.metadata.soft_verification;
  // xml: a record written the way the exporter writes it, then broken.
  const hfXml = clone();
  hfXml.messages[2].content = "<think>\nr\n</think>\n";
  hfXml.messages[2].tool_calls[0].function.arguments = { command: "ls", view_range: [1, 2] };
  hfXml.tools = [{ type: "function", function: { name: "bash", description: "d",
    parameters: JSON.stringify({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }) } }];
  const call = "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=view_range>\n[1, 2]\n</parameter>\n</function>\n</tool_call>";
  const xml = { messages: [
    { role: "system", content: "s\n<tools>\n<function>\n<name>bash</name>\n<description>d</description>\n<parameters>\n<parameter>\n<name>command</name>\n<type>string</type>\n</parameter>\n<required>[\"command\"]</required>\n</parameters>\n</function>\n</tools>" },
    { role: "user", content: "u" },
    { role: "assistant", content: "<think>\nr\n</think>\n\n" + call },
    { role: "user", content: "<tool_response>\nx\n</tool_response>" },
  ] };
  const xmlClone = () => JSON.parse(JSON.stringify(xml));
  const oneNewline = xmlClone();
  oneNewline.messages[2].content = "<think>\nr\n</think>\n" + call;
  const compactJson = xmlClone();
  compactJson.messages[2].content = compactJson.messages[2].content.replace("[1, 2]", "[1,2]");
  const toolRole = xmlClone();
  toolRole.messages[3].role = "tool";
  const noToolList = xmlClone();
  noToolList.messages[0].content = "s";
  const problems = [
    expectFailure("xml as exported", () => compareXmlRecords([hfXml], [xml], "xml")) === null ? "xml record: rejected" : null,
    expectFailure("xml: one newline before the call", () => compareXmlRecords([hfXml], [oneNewline], "xml")),
    expectFailure("xml: compact JSON value", () => compareXmlRecords([hfXml], [compactJson], "xml")),
    expectFailure("xml: tool result not a user turn", () => compareXmlRecords([hfXml], [toolRole], "xml")),
    expectFailure("xml: tools not listed", () => compareXmlRecords([hfXml], [noToolList], "xml")),
    expectFailure("good record", () => { checkTojson(good, "good"); checkItems(good, "good"); }) === null
      ? "good record: rejected" : null,
    expectFailure("object arguments (merged by a columnar loader)", () => checkArgumentStrings(good, "object-args")),
    expectFailure("string arguments accepted", () => checkArgumentStrings(stringArgs, "string-args")) === null
      ? "string arguments: rejected" : null,
    expectFailure("string arguments quoted twice", () => checkTojson(stringArgs, "string-args")),
    expectFailure("string arguments under |items", () => checkItems(stringArgs, "string-args")),
    expectFailure("tool message without name", () => checkItems(noName, "no-name")),
    expectFailure("missing metadata key", () => checkSchema([["a", t2], ["b", missingKey]])),
    expectFailure("null and object merge", () => checkSchema([["a", good], ["b", t2]])) === null
      ? "null vs object: rejected" : null,
  ];
  reportProblems(problems);
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === "--self-check") {
  selfCheck();
} else if (args.length === 3 && args[0] === "--compare-hermes") {
  compareHermes(args[1], args[2]);
  if (failures.length === 0) console.log("ok: hermes text equals the template rendering of the hf records");
} else if (args.length === 3 && args[0] === "--compare-xml") {
  compareXml(args[1], args[2]);
  if (failures.length === 0) console.log("ok: xml text equals the Qwen3-Coder-style template rendering of the hf records");
} else if (args.length >= 1) {
  const n = checkFiles(args);
  if (failures.length === 0) console.log(`ok: ${n} record(s) render and share one schema`);
} else {
  console.error("usage: node render_test.mjs T1.jsonl [T2.jsonl ...] | --self-check");
  process.exit(2);
}
finish();
