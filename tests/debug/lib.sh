# SPDX-License-Identifier: MIT
# Shared by the debug tests (sourced): a scratch directory, virt_dbg in the
# background, and clean-up of every process started, whatever happens.
# Each process runs under `timeout` (DEBUG_TIMEOUT seconds, less than the
# tests' ctest TIMEOUT, so that a hang fails with the logs printed).

DEBUG_TIMEOUT=30
DEBUG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/spoor-debug.XXXXXX")
DEBUG_PIDS=""

# Kills the processes started and removes the scratch directory.
# Whether process $1 still runs (not ended, nor a zombie waiting to be reaped).
debug_alive() {
	state=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

debug_cleanup() {
	for pid in $DEBUG_PIDS; do
		kill "$pid" 2>/dev/null || true
	done
	# What has not ended 5 s after SIGTERM is killed, with what it runs
	# (each is a `timeout` around the program): a sanitizer runtime was
	# seen to hang at exit and hold the test until ctest's timeout.
	for _ in $(seq 50); do
		alive=""
		for pid in $DEBUG_PIDS; do
			debug_alive "$pid" && alive=1
		done
		[ -n "$alive" ] || break
		sleep 0.1
	done
	for pid in $DEBUG_PIDS; do
		debug_alive "$pid" || continue
		echo "debug_cleanup: process $pid did not end on SIGTERM: killed"
		for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			kill -KILL "$child" 2>/dev/null || true
		done
		kill -KILL "$pid" 2>/dev/null || true
	done
	for pid in $DEBUG_PIDS; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$DEBUG_TMP"
}
trap debug_cleanup EXIT
trap 'exit 1' INT TERM HUP

# Prints the message and the logs given, then fails the test.
die() {
	msg=$1
	shift
	for f in "$@"; do
		[ -f "$f" ] && { echo "---- $f"; cat "$f"; }
	done
	echo "FAIL: $msg"
	exit 1
}

# Starts the virtual board on a free port: `spoor virt $3` when $1 is the
# spoor command, else `virt_dbg --xlen $2 $3` ($1 is that binary); sets
# JTAG_PORT and VIRT_LOG.
start_virt() {
	VIRT_LOG=$DEBUG_TMP/virt.log
	case $(basename "$1") in
	spoor)
		timeout "$DEBUG_TIMEOUT" "$1" virt --jtag-port 0 "$3" >"$VIRT_LOG" 2>&1 & ;;
	*)
		timeout "$DEBUG_TIMEOUT" "$1" --xlen "$2" --jtag-port 0 "$3" >"$VIRT_LOG" 2>&1 & ;;
	esac
	DEBUG_PIDS="$DEBUG_PIDS $!"
	JTAG_PORT=""
	for _ in $(seq 100); do
		# The log may not exist yet: the background shell creates it.
		JTAG_PORT=$(sed -n 's/^jtag: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$VIRT_LOG" 2>/dev/null ||
			true)
		[ -n "$JTAG_PORT" ] && return 0
		sleep 0.1
	done
	die "virt_dbg did not report its port" "$VIRT_LOG"
}

# Starts OpenOCD ($1) with the board configuration $2, its GDB port on any
# free port, telnet and Tcl off; sets GDB_PORT and OCD_LOG.
start_openocd() {
	OCD_LOG=$DEBUG_TMP/openocd.log
	timeout "$DEBUG_TIMEOUT" "$1" -c "set VIRT_JTAG_PORT $JTAG_PORT" -c "set VIRT_GDB_PORT 0" \
		-c "set VIRT_TELNET_PORT disabled" -c "set VIRT_TCL_PORT disabled" \
		-f "$2" -c init >"$OCD_LOG" 2>&1 &
	DEBUG_PIDS="$DEBUG_PIDS $!"
	GDB_PORT=""
	for _ in $(seq 100); do
		GDB_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for gdb connections.*/\1/p' \
			"$OCD_LOG" 2>/dev/null || true)
		[ -n "$GDB_PORT" ] && return 0
		sleep 0.1
	done
	die "OpenOCD did not report its GDB port" "$OCD_LOG" "$VIRT_LOG"
}

# Prints the address of symbol $2 in ELF file $3 ($1: nm), as 0x...
sym() {
	addr=$("$1" "$3" | awk -v s="$2" '$3 == s { print $1 }')
	[ -n "$addr" ] || die "no symbol $2 in $3"
	printf '0x%s\n' "$addr" | sed 's/^0x0*\([0-9a-f]\)/0x\1/'
}
