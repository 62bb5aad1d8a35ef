#!/bin/bash
# A libFuzzer campaign over every parser (run by hand; ctest's fuzz runs are short).
#
# usage: scripts/fuzz.sh [-m MINUTES] [-j PARALLEL] [TARGET ...]
#   MINUTES   per target (default 5)
#   PARALLEL  targets fuzzed at once, one process each (default 1)
#   TARGET    stream decode rsp probe params board elf bitbang capture
#             (default: all)
#
# Builds build-fuzz (clang, ASan+UBSan, every library instrumented with
# -fsanitize=fuzzer-no-link), fuzzes each target from its checked-in seeds
# and dictionary into a corpus kept in build-fuzz/corpus/TARGET (so a later
# campaign goes on from there), and prints one line per target:
#   TARGET: cov START -> END, ft START -> END, RUNS runs in MIN min, crashes: N
# (START: the seeds and the kept corpus loaded; N: this campaign's crashes,
# timeouts, leaks and OOMs).  Those inputs are left in build-fuzz/crashes/TARGET/
# and the log in build-fuzz/fuzz-TARGET.log.  Exit status 1 if any target crashed.
set -u
cd "$(dirname "$0")/.." || exit 2
minutes=5 parallel=1
while getopts m:j:h o; do
	case $o in
	m) minutes=$OPTARG ;;
	j) parallel=$OPTARG ;;
	h) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-m MINUTES] [-j PARALLEL] [TARGET ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
targets=${*:-stream decode rsp probe params board elf bitbang capture}
V=$(cd .. && pwd)/shared/conformance/etrace-v2
F=tests/fuzz

# The seeds and options of TARGET (the same as tests/CMakeLists.txt's).
seeds() {
	case $1 in
	stream) echo "$F/stream-seeds $V/encap" ;;
	decode) echo "$F/decode-seeds $V/itype3_basic" ;;
	*) echo "$F/$1-seeds" ;;
	esac
}
options() {
	case $1 in
	stream|probe) echo "-max_len=4096" ;;
	decode) echo "-max_len=2048 -timeout=10" ;;
	rsp) echo "-max_len=2048 -dict=$F/rsp.dict" ;;
	params|board) echo "-max_len=4096 -dict=$F/$1.dict" ;;
	elf|bitbang) echo "-max_len=65536 -dict=$F/$1.dict" ;;
	capture) echo "-max_len=8192 -dict=$F/$1.dict" ;;
	*) echo "unknown target '$1' (stream decode rsp probe params board elf bitbang" \
		"capture)" >&2; return 1 ;;
	esac
}

for t in $targets; do
	options "$t" >/dev/null || exit 2
done
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DSPOOR_SANITIZE=ON -DSPOOR_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=Debug >/dev/null || exit 2
for t in $targets; do
	cmake --build build-fuzz --parallel 2 --target "fuzz_$t" >/dev/null || exit 2
done

# Fuzzes target $1 for $minutes minutes; writes its log.
run() {
	local t=$1 corpus=build-fuzz/corpus/$1 crashes=build-fuzz/crashes/$1
	mkdir -p "$corpus" "$crashes"
	touch "build-fuzz/fuzz-$t.start"
	# shellcheck disable=SC2046
	./build-fuzz/tests/fuzz_"$t" -max_total_time=$((minutes * 60)) -print_final_stats=1 \
		-artifact_prefix="$crashes/" $(options "$t") "$corpus" $(seeds "$t") \
		>"build-fuzz/fuzz-$t.log" 2>&1
}

# The crashes, timeouts, leaks and OOMs of target $1 in this campaign.
crashes() {
	find "build-fuzz/crashes/$1" -type f -newer "build-fuzz/fuzz-$1.start"
}

# One line from the log of target $1.
report() {
	local log=build-fuzz/fuzz-$1.log first last runs
	first=$(grep -m1 'INITED cov:' "$log")
	last=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	# A run stopped by a crash prints no final statistics.
	[ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
	printf '%s: cov %s -> %s, ft %s -> %s, %s runs in %s min, crashes: %s\n' "$1" \
		"$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$first")" \
		"$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")" \
		"$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$first")" \
		"$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")" \
		"${runs:-0}" "$minutes" "$(crashes "$1" | wc -l)"
}

running=0
for t in $targets; do
	run "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$parallel" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
status=0
for t in $targets; do
	report "$t"
	[ -z "$(crashes "$t")" ] || status=1
done
exit $status
