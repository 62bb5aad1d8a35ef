#!/bin/bash
# The analysis outputs as people look at them: spoor coverage's lcov tracefile
# rendered by genhtml, spoor profile's folded stacks by flamegraph.pl, each
# page screenshot by headless Chromium and the screenshot checked not blank
# (tools/png_check.py); an empty page's screenshot must be found blank.
# usage: test_render.sh SPOOR ISS_RUN BOARD PROG.elf [OUTDIR]
# OUTDIR, if given, receives the screenshots (coverage-index.png,
# coverage-source.png, flamegraph.png) and flamegraph.svg.
# Needs chromium, genhtml (lcov), flamegraph.pl (libdevel-nytprof-perl),
# python3 and riscv64-unknown-elf-nm.
set -u
spoor=$1 iss_run=$2 board=$3 elf=$4 outdir=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
png_check="python3 $here/../tools/png_check.py"
flamegraph=${FLAMEGRAPH:-/usr/share/perl5/Devel/NYTProf/flamegraph.pl}
chromium=${CHROMIUM:-chromium}
prog=$(basename "$elf" .elf)

for tool in "$chromium" genhtml python3 perl riscv64-unknown-elf-nm; do
	command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (scripts/install-deps.sh)"; exit 1; }
done
[ -r "$flamegraph" ] || { echo "FAIL: $flamegraph not found (apt-get install libdevel-nytprof-perl)"; exit 1; }

# shot NAME FILE: a 1280x900 screenshot of FILE (file:// only) into
# $tmp/NAME.png.  Each run has its own profile, home and caches under $tmp
# (several at once under ctest -j) and no network: no background services,
# and every host name unresolved (without that rule Chromium still looks up
# accounts.google.com and clients2.google.com).  timeout kills the whole
# process group (chromium's helpers too) after 60 s.  Chromium >= 132's
# --headless is the new headless mode; as root it needs --no-sandbox.
shot() {
	local name=$1 file=$2 rc
	mkdir -p "$tmp/chromium-$name/home"
	HOME=$tmp/chromium-$name/home XDG_CONFIG_HOME=$tmp/chromium-$name/home/.config \
	XDG_CACHE_HOME=$tmp/chromium-$name/home/.cache \
		timeout -k 5 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/chromium-$name/profile" \
		--no-first-run --no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--disable-dev-shm-usage --hide-scrollbars --force-device-scale-factor=1 \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--window-size=1280,900 --screenshot="$tmp/$name.png" "file://$file" \
		</dev/null >"$tmp/chromium-$name.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$tmp/$name.png" ]; then
		fail "chromium: screenshot of $file: exit $rc: $(grep -v 'dbus\|unexpected operator' \
			"$tmp/chromium-$name.out" | tail -5)"
		return 1
	fi
	ok
}

# look NAME FILE [png_check options]: the screenshot of FILE is not blank.
look() {
	local name=$1 file=$2
	shift 2
	shot "$name" "$file" || return
	if $png_check "$tmp/$name.png" "$@" >"$tmp/png-$name.out" 2>&1; then
		ok
	else
		fail "$name: $(cat "$tmp/png-$name.out")"
	fi
	sed 's/^/  /' "$tmp/png-$name.out"
}

# An empty page is found blank: png_check and this Chromium agree on what
# blank is.
echo '<!DOCTYPE html><html><head><title>empty</title></head><body></body></html>' \
	>"$tmp/empty.html"
if shot empty "$tmp/empty.html"; then
	$png_check "$tmp/empty.png" >"$tmp/png-empty.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q 'looks blank' "$tmp/png-empty.out" && ok ||
		fail "png_check on an empty page's screenshot: exit $rc, not 1: $(cat "$tmp/png-empty.out")"
fi

# The capture: the program from reset to its exit.
"$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap" --exit "$elf" \
	>"$tmp/virt.out" 2>"$tmp/virt.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/cap" ] && ok || fail "spoor virt: exit $rc: $(tail -3 "$tmp/virt.err")"

# The functions of PROG.c the program entered (the ISS retired their first
# instruction): each must be in the flame graph.
"$iss_run" --trace "$tmp/iss.tr" "$elf" >/dev/null 2>&1 ||
	fail "iss_run $elf: exit $?"
riscv64-unknown-elf-nm -l --defined-only "$elf" |
	awk -v src="/$prog.c:" '$2 ~ /^[Tt]$/ && index($4, src) {
		a = $1; sub(/^0+/, "", a); print a, $3 }' >"$tmp/syms"
awk 'NR == FNR { sym[$1] = $2; next }
     $1 == "R" && ($2 in sym) { print sym[$2] }' "$tmp/syms" "$tmp/iss.tr" |
	sort -u >"$tmp/entered"
grep -qx main "$tmp/entered" && ok ||
	fail "the ISS never entered main of $prog.c: $(tr '\n' ' ' <"$tmp/entered")"

# Coverage: genhtml takes the tracefile without a warning; the summary page and
# the page of the program's source are not blank.
"$spoor" coverage --board "$board" --elf "$elf" -o "$tmp/cov.info" "$tmp/cap" \
	>/dev/null 2>"$tmp/cov.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/cov.info" ] && ok || fail "spoor coverage: exit $rc: $(cat "$tmp/cov.err")"
(cd "$tmp" && genhtml --branch-coverage -o html cov.info) >"$tmp/genhtml.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || fail "genhtml: exit $rc: $(grep -i 'error\|warning' "$tmp/genhtml.out" |
	head -5)"
if grep -qi warning "$tmp/genhtml.out"; then
	fail "genhtml warns: $(grep -i warning "$tmp/genhtml.out" | head -5)"
else
	ok
fi
sed -n '/^Overall coverage rate/,$s/^/  genhtml: /p' "$tmp/genhtml.out"
source_page=$(find "$tmp/html" -name "$prog.c.gcov.html" 2>/dev/null | head -1)
if [ $rc -ne 0 ]; then
	:
elif [ -f "$tmp/html/index.html" ] && [ -n "$source_page" ]; then
	ok
	grep -q "^  lines\.*: [1-9]" "$tmp/genhtml.out" && ok ||
		fail "genhtml: no line covered: $(tail -4 "$tmp/genhtml.out")"
	grep -q 'class="lineCov"' "$source_page" && ok ||
		fail "$prog.c.gcov.html shows no covered line"
	look coverage-index "$tmp/html/index.html"
	look coverage-source "$source_page"
else
	fail "genhtml made no index.html or no $prog.c.gcov.html: $(cd "$tmp" && find html -name '*.html' | head)"
fi

# Profile: flamegraph.pl takes the folded stacks without a complaint; the
# graph names every function the program entered and is not blank.
"$spoor" profile --board "$board" --elf "$elf" --format folded -o "$tmp/prof.folded" \
	"$tmp/cap" >/dev/null 2>"$tmp/prof.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/prof.folded" ] && ok ||
	fail "spoor profile --format folded: exit $rc: $(cat "$tmp/prof.err")"
perl "$flamegraph" --title "spoor profile: $prog" --countname instructions \
	--minwidth 0 "$tmp/prof.folded" >"$tmp/flame.svg" 2>"$tmp/flame.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/flame.err" ] && ok ||
	fail "flamegraph.pl: exit $rc: $(head -5 "$tmp/flame.err")"
# Each frame is <title>NAME (COUNT instructions, P%)</title>.
sed -n 's/.*<title>\(.*\) ([0-9,]* instructions, [0-9.]*%)<\/title>.*/\1/p' "$tmp/flame.svg" |
	sort -u >"$tmp/frames"
missing=$(comm -23 "$tmp/entered" "$tmp/frames" | tr '\n' ' ')
[ -s "$tmp/frames" ] && [ -z "$missing" ] && ok ||
	fail "the flame graph lacks $missing(it has: $(tr '\n' ' ' <"$tmp/frames"))"
# The graph's background is a gradient: its frames must show, in hot colours.
look flamegraph "$tmp/flame.svg" --min-saturated 0.02

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	for f in coverage-index coverage-source flamegraph; do
		[ -f "$tmp/$f.png" ] && cp "$tmp/$f.png" "$outdir/"
	done
	cp "$tmp/flame.svg" "$outdir/flamegraph.svg"
	echo "screenshots in $outdir"
fi
finish
