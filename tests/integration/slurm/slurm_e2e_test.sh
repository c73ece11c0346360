#!/usr/bin/env bash
# A cluster run without a cluster: scripts/slurm/submit against fake
# sbatch/scontrol (fake/), the real seragen and its scripted teacher.
#  1. submit --shards 4 --array 0-2:2 (stepped): shard 2 gets the time-limit
#     signal mid-run, exits 75, is requeued and resumes; the merge job (afterany)
#     merges and exits 3 naming shards 1 and 3, which never ran;
#  2. submit --array 1,3 (listed): the merge job exits 0;
#  3. the merged data equals a single-process run of the same config.
# The config takes its paths and the teacher's URL from ${VAR}s.
# Usage: slurm_e2e_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../script_lib.sh" slurm_e2e_test "$@"
export PATH=$here/fake:$PATH SERAGEN=$seragen

"$src/scripts/make-demo-repo" "$tmp/inventory" > /dev/null
# The simulated prefix cache is off: its cached-token counts depend on the order requests
# arrive in, which differs between the single run and the shards compared below.
printf 'prefix_cache_blocks: 0\n' > "$tmp/teacher.yaml"
start_teacher "$seragen" --config "$tmp/teacher.yaml" --seed 7 --latency fixed:40

cp "$here/cluster_config.yaml" "$tmp/config.yaml"
export SCRATCH=$tmp TEACHER_URL=$url
export TMPDIR=$tmp/site-tmp   # the "site's" node-local TMPDIR, which the job must keep
mkdir -p "$TMPDIR"

# Reference: one process, same config, another run directory.
"$seragen" run -c "$tmp/config.yaml" --set "run.dir=$tmp/single" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "single run"; }
"$seragen" export "$tmp/single" > /dev/null || fail "export of the single run"

# 1. Stepped array; shard 2 is signalled once its journal has a task record.
export FAKE_SLURM_DIR=$tmp/slurm
export FAKE_SLURM_TIME_LIMIT_TASK=2 FAKE_SLURM_TIME_LIMIT_FILE=$tmp/run/shard-2/journal.jsonl FAKE_SLURM_TIME_LIMIT_LINES=2
"$src/scripts/slurm/submit" -c "$tmp/config.yaml" --shards 4 --array 0-2:2 -- --partition=test > "$tmp/submit1.out" \
  || { show "$tmp/submit1.out" "$FAKE_SLURM_DIR/calls"; fail "submit (stepped) exited $?"; }
logs=$tmp/run/logs
calls=$FAKE_SLURM_DIR/calls events=$FAKE_SLURM_DIR/events
grep -q -- '--array=0-2:2 .*--partition=test .*seragen-array.sbatch' "$calls" || { show "$calls"; fail "array not submitted with the stepped spec and the user's options"; }
grep -q -- '--dependency=afterany:1000 .*seragen-merge.sbatch' "$calls" || { show "$calls"; fail "merge job not submitted afterany the array"; }
grep -qx 'scontrol requeue 1000_2' "$calls" || { show "$calls" "$events" "$logs/seragen-1000_2.out"; fail "shard 2 was not requeued at its time limit"; }
grep -q 'end 1000 2 restart=0 exit=75' "$events" || { show "$events"; fail "shard 2 did not stop with 75 at the time limit"; }
grep -q 'end 1000 2 restart=1 exit=0' "$events" || { show "$events" "$logs/seragen-1000_2.out"; fail "requeued shard 2 did not finish"; }
grep -q 'end 1000 0 restart=0 exit=0' "$events" || { show "$events" "$logs/seragen-1000_0.out"; fail "shard 0 failed"; }
[[ $(grep -c 'start on' "$logs/seragen-1000_2.out") == 2 ]] || { show "$logs/seragen-1000_2.out"; fail "shard 2's log not appended across the requeue"; }
grep -q "working copies in $TMPDIR/seragen-1000-2" "$logs/seragen-1000_2.out" || fail "the site's TMPDIR was not used"
[[ -z "$(ls -A "$TMPDIR")" ]] || { ls -la "$TMPDIR"; fail "working copies left after success"; }
grep -q 'end 1001 - restart=0 exit=3' "$events" || { show "$events" "$logs/seragen-merge-1001.out"; fail "merge of an incomplete run did not exit 3"; }
grep -q 'incomplete shards 1/4 (0 of 2 done, never ran), 3/4 (0 of 1 done, never ran)' "$logs/seragen-merge-1001.out" \
  || { show "$logs/seragen-merge-1001.out"; fail "merge did not name the incomplete shards"; }

# 2. Listed array: the missing shards.
unset FAKE_SLURM_TIME_LIMIT_TASK
"$src/scripts/slurm/submit" -c "$tmp/config.yaml" --shards 4 --array 1,3 > "$tmp/submit2.out" || fail "submit (listed) exited $?"
grep -q 'end 1003 - restart=0 exit=0' "$events" || { show "$events" "$logs/seragen-merge-1003.out"; fail "merge of the complete run did not exit 0"; }
"$seragen" status "$tmp/run" > "$tmp/status.txt"
grep -q '^result  *complete' "$tmp/status.txt" || { show "$tmp/status.txt"; fail "status not complete"; }
grep -q '^cost  *total \$' "$tmp/status.txt" || { show "$tmp/status.txt"; fail "status shows no cost"; }

# 3. Same tasks and records as the single process.
diff <(cut -f1 "$tmp/single/tasks.jsonl") <(cut -f1 "$tmp/run/tasks.jsonl") > /dev/null || fail "plans differ"
for f in t1.hf.jsonl t2.hf.jsonl; do
  [[ -s "$tmp/single/data/$f" ]] || fail "the single run exported no $f"
  diff <(sort "$tmp/single/data/$f") <(sort "$tmp/run/data/$f") > "$tmp/diff.txt" || { head -c 3000 "$tmp/diff.txt"; fail "merged $f differs from the single run"; }
done
echo "slurm_e2e_test: ok ($(wc -l < "$tmp/run/data/t1.hf.jsonl") T1 and $(wc -l < "$tmp/run/data/t2.hf.jsonl") T2 records)"
