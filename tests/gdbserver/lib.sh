# SPDX-License-Identifier: MIT
# Shared by the gdbserver tests (sourced after tests/debug/lib.sh): the
# ISS's own retirement log, spoor virt with options, spoor gdbserver.

# The ISS's retired pcs of $2 (ELF) from its entry on into file $3 ($1: iss_run).
iss_log() {
	"$1" --trace "$DEBUG_TMP/iss.tr" "$2" >/dev/null || die "iss_run failed"
	entry=$(grep -m1 -n '^R 80000000$' "$DEBUG_TMP/iss.tr" | cut -d: -f1)
	tail -n +"$entry" "$DEBUG_TMP/iss.tr" | awk '$1 == "R" { print $2 }
		$1 == "E" && ($3 == "3" || $3 == "8" || $3 == "9" || $3 == "b") { print $2 }' >"$3"
}

# Prints the lines of file $1 from the first line $2 to before the first
# later line $3 (addresses as the ISS log writes them: hex, no 0x).
interval() {
	awk -v a="$2" -v b="$3" 'started && $1 == b { exit } $1 == a { started = 1 }
		started { print }' "$1"
}

# Starts `spoor virt` ($1) with the board $2 and options $4... on ELF $3;
# sets JTAG_PORT, TRACE_PORT and VIRT_LOG.
start_spoor_virt() {
	VIRT_LOG=$DEBUG_TMP/virt.log
	v_spoor=$1 v_board=$2 v_elf=$3
	shift 3
	timeout "$DEBUG_TIMEOUT" "$v_spoor" virt --board "$v_board" --jtag-port 0 --trace-port 0 \
		"$@" "$v_elf" >"$VIRT_LOG" 2>&1 &
	DEBUG_PIDS="$DEBUG_PIDS $!"
	JTAG_PORT="" TRACE_PORT=""
	for _ in $(seq 100); do
		JTAG_PORT=$(sed -n 's/^jtag: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$VIRT_LOG" 2>/dev/null || true)
		TRACE_PORT=$(sed -n 's/^trace: 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$VIRT_LOG" 2>/dev/null ||
			true)
		[ -n "$JTAG_PORT" ] && [ -n "$TRACE_PORT" ] && return 0
		sleep 0.1
	done
	die "spoor virt did not report its ports" "$VIRT_LOG"
}

# Starts `spoor gdbserver` ($1) with the options given; sets GS_PORT and GS_LOG.
start_gdbserver() {
	GS_LOG=$DEBUG_TMP/gdbserver.log
	gs_spoor=$1
	shift
	# Emptied first: the background redirection may come after the first look.
	: >"$GS_LOG"
	timeout "$DEBUG_TIMEOUT" "$gs_spoor" gdbserver --port 0 "$@" >"$GS_LOG" 2>&1 &
	GS_PID=$!
	DEBUG_PIDS="$DEBUG_PIDS $GS_PID"
	GS_PORT=""
	for _ in $(seq 100); do
		GS_PORT=$(sed -n 's/^gdb: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$GS_LOG" 2>/dev/null || true)
		[ -n "$GS_PORT" ] && return 0
		kill -0 "$GS_PID" 2>/dev/null || break
		sleep 0.1
	done
	die "spoor gdbserver did not report its port" "$GS_LOG"
}

# Compares history file $1 with the expected pcs in $2 (both hex, no 0x).
same_pcs() {
	if ! cmp -s "$1" "$2"; then
		diff "$2" "$1" | head -20
		die "$3: the history differs from the ISS ($(wc -l <"$1") vs $(wc -l <"$2") lines)" \
			"$GS_LOG"
	fi
}
