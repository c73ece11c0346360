# Sourced by the shell integration tests: `. script_lib.sh TEST_NAME [SOURCE_DIR BUILD_DIR]`.
# Makes $tmp (searchable by the sandbox uids), stops the scripted teacher whose
# pid the test puts in $teacher_pid and removes $tmp on exit, and defines
# fail MESSAGE, which names the test and exits 1, and show FILE..., which
# prints files under a header line. With the two directories: $src, $build,
# $seragen (the built binary) and $teacher (build/seragen-teacher, the
# scripted stand-in for a model), as absolute paths.
test_name=$1
if (( $# >= 3 )); then
  src=$(realpath "$2")
  build=$(realpath "$3")
  seragen=$build/seragen
  teacher=$build/seragen-teacher
fi
show() { for f in "$@"; do echo "--- $f"; cat "$f" 2>/dev/null || true; done; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
teacher_pid=
cleanup() {
  [[ -n "$teacher_pid" ]] && kill "$teacher_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "$test_name: FAIL: $*" >&2; exit 1; }

# start_teacher TEACHER [TEACHER FLAGS...]: starts the scripted teacher
# (TEACHER: the seragen-teacher binary, a stand-in for a model) on a
# free port (log: $tmp/teacher.log), sets $teacher_pid and $url (its /v1
# base URL); fails the test if it does not announce a URL within 10 s.
start_teacher() {
  local teacher_bin=$1
  shift
  "$teacher_bin" --port 0 "$@" > "$tmp/teacher.log" 2>&1 &
  teacher_pid=$!
  url=
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*/v1' "$tmp/teacher.log" | head -1 || true)
    [[ -n "$url" ]] && return 0
    sleep 0.1
  done
  cat "$tmp/teacher.log"
  fail "the teacher did not start"
}
