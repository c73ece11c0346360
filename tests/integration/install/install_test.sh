#!/usr/bin/env bash
# Installs the built seragen into a temporary prefix and runs the demo
# pipeline with it from an unrelated working directory, against the installed
# scripted teacher (PREFIX/bin/seragen-teacher, a stand-in for a model; the
# installed seragen links none of it). Nothing is copied from the source tree:
# the prompts, configs and teacher rules must come from PREFIX/share/seragen.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
. "$(dirname "$0")/../script_lib.sh" install_test

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
seragen=$tmp/prefix/bin/seragen
[[ -x "$seragen" ]] || fail "no bin/seragen in the prefix"
teacher=$tmp/prefix/bin/seragen-teacher
[[ -x "$teacher" ]] || fail "no bin/seragen-teacher in the prefix"
# Found relative to bin/seragen; without it every command would use the build tree's.
[[ -x "$tmp/prefix/libexec/seragen/seragen-reaper" ]] || fail "no libexec/seragen/seragen-reaper in the prefix"
"$src/scripts/check-no-teacher" "$seragen" || fail "the installed seragen links the scripted teacher"
[[ -f "$tmp/prefix/share/seragen/prompts/rollout1.md" ]] || fail "prompts not installed"
[[ -f "$tmp/prefix/share/seragen/configs/tools.yaml" ]] || fail "configs not installed"

# A stale SERAGEN_DATA_DIR must not win over the installed data.
export SERAGEN_DATA_DIR=$tmp/nowhere
version=$("$seragen" --version)
echo "$version"
grep -qxF "data: $tmp/prefix/share/seragen (installed)" <<< "$version" || fail "--version does not name the installed data"

mkdir "$tmp/work"
cd "$tmp/work"
"$src/scripts/make-demo-repo" "$tmp/work/inventory" > /dev/null   # a repository to mine, not seragen data

# The installed demo config puts its run under the current directory, not into the prefix.
# (Captured first: under pipefail, `grep -q` closing the pipe early would fail the pipeline by SIGPIPE.)
shown=$("$seragen" config show -c "$tmp/prefix/share/seragen/configs/demo.yaml") || fail "config show exited $?"
grep -qxF "  dir: $tmp/work/demo-run/run" <<< "$shown" ||
  fail "the installed demo config does not put run.dir under the current directory"

start_teacher "$teacher" --seed 7

"$seragen" run -c "$tmp/prefix/share/seragen/configs/demo.yaml" \
  --set "run.dir=$tmp/work/run" --set "repos.0.source=$tmp/work/inventory" \
  --set "llm.endpoints.0.base_url=$url" --set run.log_level=warn || fail "seragen run exited $?"
status=$("$seragen" status "$tmp/work/run" --json)
grep -q '"result":"complete"' <<< "$status" || fail "run not complete: $status"
"$seragen" export "$tmp/work/run" > /dev/null || fail "export"
[[ -s "$tmp/work/run/data/t1.hf.jsonl" ]] || fail "no T1 records exported"
echo "install_test: ok"
