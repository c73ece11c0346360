// What the acceptance scripts of this directory share: the failure list, the
// self-check helper and the JSONL reader. Each script's checks push failures;
// finish() prints them and exits 0 (none) or 1.
import { readFileSync } from "node:fs";

export const failures = [];
export const fail = (where, what) => failures.push(`${where}: ${what}`);

export function readRows(path) {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

// null when `fn` reported a failure (which is then forgotten), else why not.
export function expectFailure(label, fn) {
  const before = failures.length;
  fn();
  if (failures.length === before) return `${label}: not detected`;
  failures.length = before;
  return null;
}

// Self-check results: each entry a problem (or null); replaces the failures.
export function reportProblems(problems) {
  failures.length = 0;
  for (const p of problems.filter((p) => p !== null)) failures.push(`self-check ${p}`);
}

export function finish() {
  for (const f of failures.slice(0, 50)) console.error(`FAIL ${f}`);
  process.exit(failures.length === 0 ? 0 : 1);
}
