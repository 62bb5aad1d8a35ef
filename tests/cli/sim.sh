# Shared by the CLI tests that need the sim probe on TCP (sourced after
# lib.sh, with $sim set to spoor-probe-sim): start_sim, stop_sims, port_in.

# The port a server printed into FILE after PREFIX (...127.0.0.1:PORT), waiting up to 5 s.
port_in() {
	local p
	for _ in $(seq 100); do
		p=$(sed -n "s/^$2127\.0\.0\.1:\([0-9]*\)\$/\1/p" "$1")
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}

sims=()
# Starts the sim probe with "$@"; sets $port.
start_sim() {
	"$sim" --listen 127.0.0.1:0 "$@" >"$tmp/sim.out" 2>"$tmp/sim.err" &
	sims+=($!)
	port=$(port_in "$tmp/sim.out" "listening on ") && return 0
	echo "the sim probe did not start: $(cat "$tmp/sim.err")"
	exit 1
}
stop_sims() {
	for p in "${sims[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	sims=()
}
trap 'stop_sims; rm -rf "$tmp"' EXIT
