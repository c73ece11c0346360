#!/usr/bin/env bash
# scripts/slurm/submit with a run.dir holding ',', '"' and '%' (issue 36): no
# text of the path may reach sbatch's --export list (a ',' there adds
# variables such as LD_PRELOAD to the merge job), the merge job must get the
# path exactly, and the logs must land under it (a '%' is not a pattern).
# Fake sbatch and a stand-in seragen: no cluster, no build needed.
# Usage: submit_quoting_test.sh SOURCE_DIR
set -euo pipefail
src=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../script_lib.sh" submit_quoting_test
export PATH=$here/fake:$PATH FAKE_SLURM_DIR=$tmp/slurm

run_dir="$tmp/run,LD_PRELOAD=$tmp/evil.so,x\"q%j"
mkdir -p "$run_dir"
# `config show` prints run.dir as yaml-cpp does: double-quoted, \" escaped.
yaml_dir=${run_dir//\"/\\\"}
cat > "$tmp/seragen" <<SH
#!/usr/bin/env bash
case "\$1" in
  config) printf 'run:\\n  dir: "%s"\\n' '$yaml_dir' ;;
  status) echo "result  complete" ;;
esac
{ echo "call \$1"; echo "LD_PRELOAD=\${LD_PRELOAD-unset}"; echo "SERAGEN_RUN_DIR=\${SERAGEN_RUN_DIR-unset}"; } >> "$tmp/env.log"
exit 0
SH
chmod +x "$tmp/seragen"
echo "run: {dir: x}" > "$tmp/config.yaml"

SERAGEN=$tmp/seragen bash "$src/scripts/slurm/submit" -c "$tmp/config.yaml" --shards 1 > "$tmp/submit.out" 2>&1 ||
  { cat "$tmp/submit.out"; fail "submit failed"; }
if grep -o -- '--export=[^ ]*' "$FAKE_SLURM_DIR/calls" | grep -q 'LD_PRELOAD'; then
  fail "the run directory reached an --export list: $(cat "$FAKE_SLURM_DIR/calls")"
fi
grep -q '^LD_PRELOAD=unset$' "$tmp/env.log" || fail "a job got LD_PRELOAD: $(cat "$tmp/env.log")"
grep -qxF "SERAGEN_RUN_DIR=$run_dir" "$tmp/env.log" || fail "the merge job's run directory is wrong: $(cat "$tmp/env.log")"
ls "$run_dir/logs"/seragen-merge-*.out > /dev/null 2>&1 || fail "no merge log under the run directory: $(ls -R "$tmp")"
echo "submit_quoting_test: ok"
