# Shared by the shell tests in tests/cli (each sources it first): a scratch folder $work
# removed on exit, failing a test, and the check every bad-input case makes.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_refused WORDS OUT CMD...: CMD exits with status 2 and one line on stderr that contains
# WORDS (a fixed string; "" for any), and leaves OUT ("" for none) uncreated. Its streams stay
# in $work/refused.out and $work/refused.err for further checks.
expect_refused() {
  local words=$1 out=$2 rc
  shift 2
  "$@" >"$work/refused.out" 2>"$work/refused.err" && rc=0 || rc=$?
  [[ $rc -eq 2 ]] || fail "$*: exit $rc, expected 2 ($(cat "$work/refused.err"))"
  [[ $(grep -c . "$work/refused.err") -eq 1 ]] ||
    fail "$*: stderr is not one line: $(cat "$work/refused.err")"
  grep -qF -- "$words" "$work/refused.err" ||
    fail "$*: stderr lacks '$words': $(cat "$work/refused.err")"
  [[ -z $out || ! -e $out ]] || fail "$*: wrote $out"
}
