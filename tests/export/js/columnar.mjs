// How the trainers' loaders see exported rows: a columnar (Arrow) round trip,
// datasets' JSON builder typing several files, and axolotl's preparation of a
// row before templating. Shared by the acceptance scripts of this directory.

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// The unified type of values at one place of every row, as a columnar loader
// infers it: objects become one struct with the union of all keys.
function unify(a, b) {
  if (a === undefined || a === null) return b === undefined ? null : b;
  if (b === undefined || b === null) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [unify(a[0], b[0])];
  if (isObject(a) && isObject(b)) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = unify(a[k], v);
    return out;
  }
  return a;
}
export function typeOf(value) {
  if (Array.isArray(value)) return [value.reduce((t, v) => unify(t, typeOf(v)), null)];
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeOf(v)]));
  return value === null ? null : typeof value;
}
// A value read back through that type: every struct key present, missing ones null.
function materialize(value, type) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(type)) return value.map((v) => materialize(v, type[0]));
  if (isObject(type)) return Object.fromEntries(Object.keys(type).map((k) => [k, materialize(value[k], type[k])]));
  return value;
}
export function arrowRoundTrip(rows) {
  const type = rows.reduce((t, r) => unify(t, typeOf(r)), null);
  return rows.map((r) => materialize(r, type));
}

// axolotl's preparation before it templates a row.
function removeNone(value) {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(removeNone);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, removeNone(v)]));
  return value;
}
export function axolotlPrepare(row) {
  const r = removeNone(row);
  for (const m of r.messages) {
    for (const c of m.tool_calls ?? []) if (typeof c.function.arguments === "string") c.function.arguments = JSON.parse(c.function.arguments);
  }
  for (const t of r.tools ?? []) if (typeof t.function.parameters === "string") t.function.parameters = JSON.parse(t.function.parameters);
  return r;
}

// The Arrow type of a value where a null is its own type ("null"), as
// pyarrow infers it from JSON: objects by key, lists by the unified type of
// their elements (a null element takes the others' type).
function strictType(value) {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return [value.reduce((t, v) => mergeStrict(t, strictType(v)), "null")];
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictType(v)]));
  return Number.isInteger(value) ? "number" : typeof value;
}
function mergeStrict(a, b) {
  if (a === "null") return b;
  if (b === "null") return a;
  if (Array.isArray(a) && Array.isArray(b)) return [mergeStrict(a[0], b[0])];
  if (isObject(a) && isObject(b)) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in a ? mergeStrict(a[k], v) : v;
    return out;
  }
  return a;
}
// Where `type` (the table's) cannot take `value`: the path, or null. A null
// value fits any type; a typed value does not fit a null type (pyarrow cannot
// cast a struct, string or number to null); objects need the same keys.
function castProblem(value, type, path) {
  if (value === null || value === undefined) return null;
  if (type === "null") return `${path}: a ${Array.isArray(value) ? "list" : typeof value} where the first file has only nulls`;
  if (Array.isArray(type) !== Array.isArray(value)) return `${path}: list and non-list`;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = castProblem(v, type[0], path + "[]");
      if (p) return p;
    }
    return null;
  }
  if (isObject(type) !== isObject(value)) return `${path}: object and non-object`;
  if (isObject(value)) {
    const keys = new Set([...Object.keys(type), ...Object.keys(value)]);
    for (const k of keys) {
      if (!(k in type) || !(k in value)) return `${path}.${k}: a key only one file has`;
      const p = castProblem(value[k], type[k], `${path}.${k}`);
      if (p) return p;
    }
    return null;
  }
  const t = Number.isInteger(value) ? "number" : typeof value;
  return t === type || (t === "number" && type === "number") ? null : `${path}: ${t} where the first file has ${type}`;
}
// datasets.load_dataset("json", data_files=[...]) without declared features:
// the features come from the first file's rows, every row of every file is
// cast to them. Returns the problems ("file:line: path: why"), none = loads.
export function datasetsLoadProblems(files) {
  if (files.length === 0) return ["no files"];
  const type = files[0].rows.reduce((t, r) => mergeStrict(t, strictType(r)), "null");
  const problems = [];
  for (const { path, rows } of files) {
    rows.forEach((r, i) => {
      const p = castProblem(r, type, "");
      if (p) problems.push(`${path}:${i + 1}: ${p}`);
    });
  }
  return problems;
}
