// Acceptance test: exported files load together the way
// datasets.load_dataset("json", data_files=[t1, t2]) loads them (docs/RECORDS.md,
// configs/train/trl_sft.py --data t1 t2): the first file's rows fix every
// column's type, the rows of every file must cast to it (a field null on
// every row of the first file cannot take an object or a string later).
//   node datasets_load_test.mjs FILE...      files of one format, in load order
//   node datasets_load_test.mjs --self-check proves the check can fail
// Exit status 0 = pass, 1 = a row does not cast (each printed).
import { expectFailure, fail, failures, finish, readRows, reportProblems } from "./checks.mjs";
import { datasetsLoadProblems } from "./columnar.mjs";

function check(files) {
  for (const p of datasetsLoadProblems(files).slice(0, 20)) fail("load", p);
}

function selfCheck() {
  const row = (sv) => ({ messages: [{ role: "user", content: "x", name: null }], metadata: { soft_verification: sv } });
  const scores = { recall: 1.0, accepted: true };
  const problems = [
    expectFailure("null then object", () => check([{ path: "t1", rows: [row(null)] }, { path: "t2", rows: [row(scores)] }])),
    expectFailure("string then number", () => check([{ path: "a", rows: [{ v: "1" }] }, { path: "b", rows: [{ v: 1 }] }])),
    expectFailure("extra key", () => check([{ path: "a", rows: [{ v: {} }] }, { path: "b", rows: [{ v: { k: 1 } }] }])),
    expectFailure("object then null is fine", () => check([{ path: "t2", rows: [row(scores)] }, { path: "t1", rows: [row(null)] }])) === null
      ? "object then null: rejected" : null,
  ];
  reportProblems(problems);
}

const argv = process.argv.slice(2);
if (argv[0] === "--self-check") {
  selfCheck();
} else if (argv.length >= 1) {
  const files = argv.map((path) => ({ path, rows: readRows(path) }));
  check(files);
  const n = files.reduce((s, f) => s + f.rows.length, 0);
  if (n === 0) fail(argv.join(" "), "no rows");
  else if (failures.length === 0) console.log(`ok: ${n} row(s) of ${files.length} file(s) load into one table`);
} else {
  console.error("usage: see the comment at the top of datasets_load_test.mjs");
  process.exit(2);
}
finish();
