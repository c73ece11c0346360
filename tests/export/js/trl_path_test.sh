#!/usr/bin/env bash
# The TRL recipe's path over exported hf rows: a columnar (Arrow-like) round
# trip, configs/train/trl_sft.py --prepare-only, then rendering
# (recipes_test.mjs --trl). Usage: trl_path_test.sh HF.jsonl [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hf=$1
work=${2:-$(mktemp -d)}
mkdir -p "$work"
node "$here/recipes_test.mjs" --arrow "$hf" > "$work/loaded.jsonl"
python3 "$here/../../../configs/train/trl_sft.py" --prepare-only "$work/loaded.jsonl" > "$work/prepared.jsonl"
node "$here/recipes_test.mjs" --trl "$work/prepared.jsonl" "$hf"
