# Shared by the CLI tests (sourced): a scratch directory, pass/fail counters
# and expect().  Each test ends with `finish`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# outcome STATUS PATTERN -- CMD...: runs CMD; prints why it is not what was
# expected (the exit status, PATTERN on stderr), or nothing.
outcome() {
	local status=$1 pattern=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ $got -ne "$status" ]; then
		echo "$* exited $got, expected $status: $(cat "$tmp/err")"
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; then
		echo "$*: stderr lacks '$pattern': $(cat "$tmp/err")"
	fi
}

# expect STATUS PATTERN -- CMD...: the exit status, PATTERN on stderr, and an
# error of one line (the usage text excepted).
expect() {
	local why
	why=$(outcome "$@")
	if [ -z "$why" ] && [ "$1" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -gt 1 ] &&
	   [ "$2" != usage ]; then
		shift 3
		why="$*: error is more than one line: $(cat "$tmp/err")"
	fi
	[ -z "$why" ] && ok || fail "$why"
}

# run STATUS PATTERN -- CMD...: the exit status and PATTERN on stderr, which
# may hold several lines (events, then a summary).
run() {
	local why
	why=$(outcome "$@")
	[ -z "$why" ] && ok || fail "$why"
}

# Prints the summary line; returns the test's status.
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
