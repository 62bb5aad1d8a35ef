#!/bin/bash
# Every program answers --help: usage on stdout, exit 0, nothing on stderr;
# spoor's commands too, each with the exit statuses.
# usage: test_help.sh PROGRAM...
set -u
. "$(dirname "$0")/lib.sh"

# help PROG ARGS...: PROG ARGS --help prints "usage:" on stdout and exits 0.
help() {
	"$@" --help >"$tmp/out" 2>"$tmp/err" </dev/null
	local rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'usage' "$tmp/out" || [ -s "$tmp/err" ]; then
		fail "$* --help: exit $rc, stdout '$(head -c 200 "$tmp/out")', stderr '$(head -c 200 "$tmp/err")'"
	else
		ok
	fi
}

[ $# -gt 10 ] && ok || fail "only $# programs given"
for prog in "$@"; do
	help "$prog"
	if [ "$(basename "$prog")" = spoor ]; then
		for cmd in $("$prog" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
			help "$prog" "$cmd"
			grep -q '^Exit status: ' "$tmp/out" && ok ||
				fail "spoor $cmd --help: no exit statuses"
		done
	fi
done
finish
