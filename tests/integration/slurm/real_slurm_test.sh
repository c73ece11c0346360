#!/usr/bin/env bash
# scripts/slurm/submit on a real Slurm: a single-node cluster (munged,
# slurmctld, slurmd from Debian's slurm-wlm; no systemd, no cgroups) started
# in a temp dir on free ports, the real seragen and its scripted teacher.
#  - a 2-shard array, one shard at a time (--array 0-1%1), with
#    budget.max_tasks 5 of the 6 planned tasks;
#  - shard 1 gets the time-limit signal (scancel --signal=USR1 --batch) once its
#    journal has a task record: it exits 75, requeues itself and resumes;
#  - the budget holds across the requeue: 5 tasks started in all;
#  - the merge job runs after the array, exports every finished task once and
#    exits 3 (the task the budget left unstarted).
# Usage: real_slurm_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../script_lib.sh" real_slurm_test "$@"
for tool in munged slurmctld slurmd sbatch scancel squeue sinfo scontrol; do
  command -v "$tool" > /dev/null || fail "$tool is not installed (scripts/setup installs slurm-wlm and munge)"
done

cluster=$tmp/cluster
mkdir -p "$cluster/munge" "$cluster/state" "$cluster/spool"
chmod 700 "$cluster/munge"
stop_cluster() {
  local pidfile
  scancel --full --user=root 2> /dev/null || true  # jobs of this cluster only (SLURM_CONF)
  for pidfile in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
    [[ -s "$pidfile" ]] && kill "$(cat "$pidfile")" 2> /dev/null || true
  done
  sleep 0.5
}
trap 'stop_cluster; cleanup' EXIT
# A TCP port nothing listens on.
free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null || { echo "$port"; return; }
  done
}

head -c 1024 /dev/urandom > "$cluster/munge/munge.key"
chmod 400 "$cluster/munge/munge.key"
munged --force --socket="$cluster/munge/munge.sock" --key-file="$cluster/munge/munge.key" \
  --pid-file="$cluster/munge/munged.pid" --log-file="$cluster/munge/munged.log" \
  --seed-file="$cluster/munge/munged.seed" || fail "munged did not start"
ctld_port=$(free_port)
slurmd_port=$(free_port)
[[ "$ctld_port" != "$slurmd_port" ]] || slurmd_port=$(free_port)
node=$(hostname -s)
# cred_expire=5: a requeued job waits cred_expire + 1 s (below 5 the 120 s default applies).
cat > "$cluster/slurm.conf" << EOF
ClusterName=seragentest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$cluster/munge/munge.sock,cred_expire=5
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=1
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 RealMemory=4000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$cluster/slurm.conf
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 1 100); do
  [[ "$(sinfo -h -o %t 2> /dev/null)" == idle ]] && break
  sleep 0.1
done
[[ "$(sinfo -h -o %t)" == idle ]] || { show "$cluster/slurmctld.log" "$cluster/slurmd.log"; fail "the node is not idle"; }

"$src/scripts/make-demo-repo" "$tmp/inventory" > /dev/null
start_teacher "$teacher" --seed 7 --latency fixed:60
cp "$here/cluster_config.yaml" "$tmp/config.yaml"
printf 'budget:\n  max_tasks: 5\n' >> "$tmp/config.yaml"
export SCRATCH=$tmp TEACHER_URL=$url SERAGEN=$seragen
export TMPDIR=$tmp/site-tmp
mkdir -p "$TMPDIR"

"$src/scripts/slurm/submit" -c "$tmp/config.yaml" --shards 2 --array 0-1%1 \
  -- --cpus-per-task=1 --mem=200 --time=30 > "$tmp/submit.out" || { show "$tmp/submit.out"; fail "submit exited $?"; }
read -r array merge < <(sed -n 's/^array job \([0-9]*\) .*merge job \([0-9]*\) .*/\1 \2/p' "$tmp/submit.out") || true
[[ -n "$array" && -n "$merge" ]] || { show "$tmp/submit.out"; fail "no job ids in submit's output"; }
logs=$tmp/run/logs

# The time-limit signal once shard 1 has a task record (the batch shell traps it).
journal1=$tmp/run/shard-1/journal.jsonl
for _ in $(seq 1 600); do
  [[ -f "$journal1" && $(wc -l < "$journal1") -ge 2 ]] && break
  sleep 0.1
done
[[ -f "$journal1" && $(wc -l < "$journal1") -ge 2 ]] || { show "$logs"/*; fail "shard 1 wrote no task record"; }
scancel --signal=USR1 --batch "${array}_1" || fail "scancel --signal=USR1 --batch ${array}_1 failed"

for _ in $(seq 1 900); do
  [[ -z "$(squeue -h 2> /dev/null)" ]] && break
  sleep 0.1
done
[[ -z "$(squeue -h)" ]] || { squeue; show "$logs"/*; fail "jobs still queued after 90 s"; }

shard1=$logs/seragen-${array}_1.out merge_log=$logs/seragen-merge-$merge.out
grep -q 'seragen exited 75' "$shard1" || { show "$shard1"; fail "shard 1 did not stop with 75 at the time limit"; }
grep -q "requeueing ${array}_1 (requeue 1 of" "$shard1" || { show "$shard1"; fail "shard 1 did not requeue itself"; }
grep -q '(restart 1)' "$shard1" || { show "$shard1" "$cluster/slurmctld.log"; fail "shard 1 did not run again"; }
[[ $(grep -c 'seragen exited' "$shard1") == 2 ]] || { show "$shard1"; fail "shard 1 did not run exactly twice"; }
[[ -f "$merge_log" ]] || { show "$logs"/*; fail "the merge job did not run"; }
# afterany: the merge starts when every array task has ended.
last_shard=$(grep -ho '^\[seragen-array [^]]*' "$logs/seragen-${array}"_*.out | cut -d' ' -f2 | sort | tail -1)
merge_said=$(grep -o '^\[seragen-merge [^]]*' "$merge_log" | head -1 | cut -d' ' -f2)
[[ -n "$merge_said" && ! "$merge_said" < "$last_shard" ]] || { show "$merge_log"; fail "merge ran before the array ended"; }
grep -q 'merged what is done, but shards are incomplete' "$merge_log" || { show "$merge_log"; fail "merge did not exit 3 naming the unstarted task's shard"; }

# The budget held across the requeue; every finished task's records once.
"$seragen" status "$tmp/run" --json > "$tmp/status.json"
grep -q '"planned":6,"started":5,' "$tmp/status.json" || { show "$tmp/status.json" "$shard1"; fail "budget.max_tasks 5 did not hold"; }
"$seragen" export "$tmp/run" --out "$tmp/export" > /dev/null || fail "export"
for f in t1.hf.jsonl t2.hf.jsonl; do
  ids() { grep -o '"task_id":"[0-9a-f]*"' "$1" | sort; }
  [[ -s "$tmp/run/data/$f" ]] || fail "the merge exported no $f"
  [[ -z "$(ids "$tmp/run/data/$f" | uniq -d)" ]] || fail "merged $f repeats a task"
  diff <(ids "$tmp/run/data/$f") <(ids "$tmp/export/$f") > /dev/null || fail "merged $f lacks finished tasks"
done
echo "real_slurm_test: ok (requeued shard resumed; $(wc -l < "$tmp/run/data/t1.hf.jsonl") T1 records)"
