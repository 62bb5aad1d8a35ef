# Shared by the CLI tests (sourced): a scratch directory, pass/fail counters
# and expect().  Each test ends with `finish`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect STATUS PATTERN -- CMD...: the exit status, PATTERN on stderr, and an
# error of one line (the usage text excepted).
expect() {
	local status=$1 pattern=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ $got -ne "$status" ]; then
		fail "$* exited $got, expected $status: $(cat "$tmp/err")"
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; then
		fail "$*: stderr lacks '$pattern': $(cat "$tmp/err")"
	elif [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -gt 1 ] && [ "$pattern" != usage ]; then
		fail "$*: error is more than one line: $(cat "$tmp/err")"
	else
		ok
	fi
}

# Prints the summary line; returns the test's status.
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
