#!/bin/bash
# Host checks of the workloads (dirtier, hog, dpfuzz, truncloop): build, --help, one
# check per bad-input class (exact line, exit 2), pacing, reports, verify
# against a corrupted file, signals, valgrind and ASan/UBSan.  dpfuzz runs
# against tests/host/dpfuzz-sim.c, an LD_PRELOAD stand-in for the debugfs
# files: clean on the documented semantics, and caught on each planted bug.
# No kernel needed.
# Never drops the host's caches: every dirtier run has --no-drop-caches.
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
asan=$top/build/bin-asan
t=$(mktemp -d "${TMPDIR:-/tmp}/workloads.t.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
failed=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failed=1; }
# check NAME COND-STATUS WHY: PASS when the previous command's test held
check() { if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---- build: quiet, incremental ----
out=$(make -s -C "$top/workloads" 2>&1); rc=$?
if [ $rc -ne 0 ] || [ ! -x "$bin/dirtier" ] || [ ! -x "$bin/hog" ] || [ ! -x "$bin/dpfuzz" ] ||
	[ ! -x "$bin/truncloop" ]; then
	fail build "make -C workloads exit $rc: $(printf '%s' "$out" | head -3)"
	exit 1
fi
[ -z "$out" ]; check build-quiet $? "make printed: $(printf '%s' "$out" | head -2)"
before=$(stat -c %Y.%s "$bin/dirtier" "$bin/hog" "$bin/dpfuzz" "$bin/truncloop")
out=$(make -C "$top/workloads" 2>&1)
after=$(stat -c %Y.%s "$bin/dirtier" "$bin/hog" "$bin/dpfuzz" "$bin/truncloop")
[ -z "$out" ] && [ "$before" = "$after" ]
check build-incremental $? "second make printed '$out' or rebuilt"

# ---- --help ----
for p in dirtier hog dpfuzz truncloop; do
	out=$("$bin/$p" --help 2>"$t/err"); rc=$?
	[ $rc -eq 0 ] && [ "${out#Usage: $p }" != "$out" ] && [ ! -s "$t/err" ]
	check "$p-help" $? "exit $rc, stdout '$(printf '%s' "$out" | head -1)'"
done

# ---- bad input: exactly one line on stderr, nothing on stdout, exit 2 ----
maxnode=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null |
	  sed 's/.*node//' | sort -n | tail -1)
maxnode=${maxnode:-0}
bad() {	# bad NAME EXPECTED-LINE PROGRAM ARGS...
	local name=$1 want=$2 rc lines; shift 2
	(cd "$t" && "$bin/$@") >"$t/out" 2>"$t/err"; rc=$?
	lines=$(wc -l <"$t/err")
	if [ $rc -ne 2 ]; then fail "$name" "exit $rc, want 2"
	elif [ "$lines" -ne 1 ]; then fail "$name" "$lines lines on stderr, want 1"
	elif [ -s "$t/out" ]; then fail "$name" "printed on stdout"
	elif [ "$(cat "$t/err")" != "$want" ]; then
		fail "$name" "got '$(cat "$t/err")', want '$want'"
	else pass "$name"; fi
}
bad dirtier-unknown-option "dirtier: unknown option '--bogus' (see --help)" \
	dirtier --bogus
bad dirtier-stray-argument "dirtier: unexpected argument 'x' (see --help)" \
	dirtier --file f --size 1M x
bad dirtier-bad-size "dirtier: --size: bad size '12Q' (want an integer with optional K, M, G or T suffix)" \
	dirtier --file f --size 12Q
bad dirtier-negative-rate "dirtier: --rate: bad size '-1' (want an integer with optional K, M, G or T suffix)" \
	dirtier --file f --size 1M --rate -1
bad dirtier-size-overflow "dirtier: --size: size '99999999999T' too large" \
	dirtier --file f --size 99999999999T
bad dirtier-node-range "dirtier: --node $((maxnode + 1)): no such node (nodes 0..$maxnode)" \
	dirtier --file f --size 1M --node $((maxnode + 1))
bad dirtier-node-not-number "dirtier: --node: bad number 'one' (want a non-negative integer)" \
	dirtier --file f --size 1M --node one
bad dirtier-missing-file "dirtier: --file is required" dirtier --size 1M
bad dirtier-missing-size "dirtier: --size is required" dirtier --file f
bad dirtier-missing-value "dirtier: --rate needs a value" dirtier --file f --size 1M --rate
bad dirtier-flag-value "dirtier: --verify takes no value" dirtier --file f --size 1M --verify=yes
bad dirtier-bad-fsync "dirtier: --fsync: bad mode 'sometimes' (want never, end or every=N)" \
	dirtier --file f --size 1M --fsync sometimes
bad dirtier-bad-policy "dirtier: --policy: bad policy 'mine' (want bind, preferred, interleave or default)" \
	dirtier --file f --size 1M --policy mine
bad dirtier-policy-needs-node "dirtier: --policy bind needs --node" \
	dirtier --file f --size 1M --policy bind
bad dirtier-bs-range "dirtier: --bs 100: want a multiple of 8 from 64 to 268435456" \
	dirtier --file f --size 1M --bs 100
bad dirtier-size-multiple "dirtier: --size 1000000 is not a multiple of --bs 65536" \
	dirtier --file f --size 1000000
bad dirtier-report-dir "dirtier: --report $t/none/r.json: cannot create: No such file or directory" \
	dirtier --file f --size 1M --report "$t/none/r.json"
bad hog-unknown-option "hog: unknown option '--sise' (see --help)" hog --sise 1M
bad hog-missing-size "hog: --size is required" hog --node 0
bad hog-bad-duration "hog: --duration: bad duration 'soon' (want seconds, 0..86400)" \
	hog --size 1M --duration soon
bad hog-node-range "hog: --node $((maxnode + 1)): no such node (nodes 0..$maxnode)" \
	hog --size 1M --node $((maxnode + 1))
bad hog-passes-duration "hog: --passes and --duration exclude each other" \
	hog --size 1M --passes 2 --duration 1
bad hog-every-needs-report "hog: --report-every needs --report" \
	hog --size 1M --report-every 1
bad dirtier-every-zero "dirtier: --report-every must be more than 0 seconds" \
	dirtier --file f --size 1M --report r --report-every 0
bad hog-bad-touch "hog: --touch: bad order 'zigzag' (want seq or random)" \
	hog --size 1M --touch zigzag
# classes the lines above leave out
bad dirtier-empty-file "dirtier: --file: empty path" dirtier --file= --size 1M
bad dirtier-empty-size "dirtier: --size: bad size '' (want an integer with optional K, M, G or T suffix)" \
	dirtier --file f --size=
bad dirtier-plus-size "dirtier: --size: bad size '+1M' (want an integer with optional K, M, G or T suffix)" \
	dirtier --file f --size +1M
bad dirtier-size-zero "dirtier: --size must be greater than 0" dirtier --file f --size 0
bad dirtier-fsync-every-zero "dirtier: --fsync every=0: N must be at least 1" \
	dirtier --file f --size 1M --fsync every=0
bad dirtier-burst-small "dirtier: --burst 1024 is smaller than --bs 65536" \
	dirtier --file f --size 1M --burst 1K
bad dirtier-every-needs-report "dirtier: --report-every needs --report" \
	dirtier --file f --size 1M --report-every 1
bad dirtier-bad-duration "dirtier: --report-every: bad duration 'soon' (want seconds, 0..86400)" \
	dirtier --file f --size 1M --report r --report-every soon
bad dirtier-file-dir "dirtier: --file $t/none/f: cannot create: No such file or directory" \
	dirtier --file "$t/none/f" --size 1M
bad dirtier-verify-missing "dirtier: --file $t/none/f: cannot open: No such file or directory" \
	dirtier --file "$t/none/f" --verify-only
bad dirtier-latency-log-dir "dirtier: --latency-log $t/none/l: cannot create: No such file or directory" \
	dirtier --file f --size 1M --latency-log "$t/none/l"
bad dirtier-help-value "dirtier: --help takes no value" dirtier --help=1
bad hog-size-zero "hog: --size must be greater than 0" hog --size 0
bad hog-stray-argument "hog: unexpected argument 'x' (see --help)" hog --size 1M x
bad hog-short-option "hog: unexpected argument '-x' (see --help)" hog -x
bad hog-double-dash "hog: unexpected argument '--' (see --help)" hog --
bad hog-missing-value "hog: --size needs a value" hog --size
bad hog-flag-value "hog: --thp takes no value" hog --size 1M --thp=1
bad hog-passes-not-number "hog: --passes: bad number 'two' (want a non-negative integer)" \
	hog --size 1M --passes two
bad hog-negative-node "hog: --node: bad number '-1' (want a non-negative integer)" \
	hog --size 1M --node -1
bad hog-negative-ramp "hog: --ramp: bad duration '-1' (want seconds, 0..86400)" \
	hog --size 1M --ramp -1
bad hog-huge-hold "hog: --hold: bad duration '1e9' (want seconds, 0..86400)" \
	hog --size 1M --hold 1e9
bad hog-infinite-duration "hog: --duration: bad duration 'inf' (want seconds, 0..86400)" \
	hog --size 1M --duration inf
bad hog-every-zero "hog: --report-every must be more than 0 seconds" \
	hog --size 1M --report r --report-every 0
bad hog-report-dir "hog: --report $t/none/r.json: cannot create: No such file or directory" \
	hog --size 1M --report "$t/none/r.json"
bad hog-churn-over-size "hog: --churn 64M: more than --size 32M" \
	hog --size 32M --hold 1 --churn 64M
bad hog-churn-partial-chunk "hog: --churn 1536K: want a whole number of MiB, at least 1M" \
	hog --size 32M --hold 1 --churn 1536K
bad hog-churn-zero "hog: --churn 0: want a whole number of MiB, at least 1M" \
	hog --size 32M --hold 1 --churn 0
bad hog-churn-bad-size "hog: --churn: bad size 'lots' (want an integer with optional K, M, G or T suffix)" \
	hog --size 32M --hold 1 --churn lots
bad hog-churn-needs-hold "hog: --churn needs --hold (it churns while holding)" \
	hog --size 32M --churn 8M
bad hog-churn-every-zero "hog: --churn-every must be 1..86400000 ms" \
	hog --size 32M --hold 1 --churn 8M --churn-every 0
bad hog-churn-every-huge "hog: --churn-every must be 1..86400000 ms" \
	hog --size 32M --hold 1 --churn 8M --churn-every 86400001
bad hog-churn-every-not-number "hog: --churn-every: bad number '0.5' (want a non-negative integer)" \
	hog --size 32M --hold 1 --churn 8M --churn-every 0.5
bad hog-churn-every-needs-churn "hog: --churn-every needs --churn" \
	hog --size 32M --hold 1 --churn-every 50
# dpfuzz: $t/vm holds plain (empty) files of the right names: enough for its
# checks of the directory, not a state it can parse
mkdir -p "$t/vm"
for f in dirty_pressure dirty_pressure_node dirty_pressure_mode dirty_pressure_recovery \
	 dirty_pressure_nodes; do : >"$t/vm/$f"; done
bad dpfuzz-unknown-option "dpfuzz: unknown option '--bogus' (see --help)" dpfuzz --bogus
bad dpfuzz-stray-argument "dpfuzz: unexpected argument 'x' (see --help)" dpfuzz x
bad dpfuzz-missing-value "dpfuzz: --count needs a value" dpfuzz --count
bad dpfuzz-count-not-number "dpfuzz: --count: bad number 'many' (want a non-negative integer)" \
	dpfuzz --count many
bad dpfuzz-count-zero "dpfuzz: --count 0: want 1..10000000" dpfuzz --count 0
bad dpfuzz-count-huge "dpfuzz: --count 99999999999: want 1..10000000" dpfuzz --count 99999999999
bad dpfuzz-threads-range "dpfuzz: --threads 65: want 1..64" dpfuzz --threads 65
bad dpfuzz-valid-every-zero "dpfuzz: --valid-every must be at least 1" dpfuzz --valid-every 0
bad dpfuzz-seed-negative "dpfuzz: --seed: bad number '-1' (want a non-negative integer)" dpfuzz --seed -1
bad dpfuzz-unknown-class "dpfuzz: --classes: unknown class 'sloppy' (see --help)" \
	dpfuzz --classes huge,sloppy
bad dpfuzz-empty-class "dpfuzz: --classes: empty class name in 'huge,'" dpfuzz --classes huge,
bad dpfuzz-empty-classes "dpfuzz: --classes: empty list" dpfuzz --classes=
bad dpfuzz-valid-not-a-class "dpfuzz: --classes: unknown class 'valid' (see --help)" \
	dpfuzz --classes valid
bad dpfuzz-no-dir "dpfuzz: --dir $t/none: no dirty_pressure: No such file or directory (debugfs mounted, dirty pressure kernel?)" \
	dpfuzz --dir "$t/none"
bad dpfuzz-empty-dir "dpfuzz: --dir: empty path" dpfuzz --dir=
bad dpfuzz-report-dir "dpfuzz: --report $t/none/r.json: cannot create: No such file or directory" \
	dpfuzz --dir "$t/vm" --report "$t/none/r.json"
bad dpfuzz-not-debugfs "dpfuzz: cannot parse $t/vm/dirty_pressure: \"\" (0 bytes)" \
	dpfuzz --dir "$t/vm"
bad truncloop-unknown-option "truncloop: unknown option '--round' (see --help)" \
	truncloop --file f --size 1M --round 2
bad truncloop-missing-file "truncloop: --file is required" truncloop --size 1M
bad truncloop-missing-size "truncloop: --size is required" truncloop --file f
bad truncloop-size-zero "truncloop: --size must be greater than 0" truncloop --file f --size 0
bad truncloop-bad-size "truncloop: --size: bad size '8Mi' (want an integer with optional K, M, G or T suffix)" \
	truncloop --file f --size 8Mi
bad truncloop-size-multiple "truncloop: --size 100000 is not a multiple of --bs 65536" \
	truncloop --file f --size 100000
bad truncloop-bs-range "truncloop: --bs 0: want 1 to 67108864" truncloop --file f --size 1M --bs 0
bad truncloop-rounds-zero "truncloop: --rounds must be at least 1" truncloop --file f --size 1M --rounds 0
bad truncloop-duration-zero "truncloop: --duration must be more than 0 seconds" \
	truncloop --file f --size 1M --duration 0
bad truncloop-rounds-duration "truncloop: --rounds and --duration exclude each other" \
	truncloop --file f --size 1M --rounds 2 --duration 1
bad truncloop-warmup-negative "truncloop: --warmup: bad number '-1' (want a non-negative integer)" \
	truncloop --file f --size 1M --warmup -1
bad truncloop-node-range "truncloop: --node $((maxnode + 1)): no such node (nodes 0..$maxnode)" \
	truncloop --file f --size 1M --node $((maxnode + 1))
bad truncloop-file-dir "truncloop: --file $t/none/f: cannot create: No such file or directory" \
	truncloop --file "$t/none/f" --size 1M
bad truncloop-report-dir "truncloop: --report $t/none/r.json: cannot create: No such file or directory" \
	truncloop --file f --size 1M --report "$t/none/r.json"
[ ! -e "$t/f" ]; check bad-input-writes-nothing $? "a rejected dirtier created its --file"
# every class of dpfuzz is in its --help
out=$("$bin/dpfuzz" --help)
for c in out_of_range negative plus_sign huge non_numeric trailing_garbage nul_byte empty \
	 oversize bad_buffer partial concurrent read_only; do
	grep -q "^  $c " <<<"$out" || { fail dpfuzz-help-classes "--help does not list $c"; c=; break; }
done
[ -n "$c" ] && pass dpfuzz-help-classes

# ---- dirtier: pacing, report, latency log ----
# 8 MiB at 4 MiB/s is 2 s of schedule; sleeping, not spinning, keeps the
# CPU time far below the wall time.
TIMEFORMAT='%U %S'
s=$(ms)
{ time "$bin/dirtier" --file "$t/f" --size 8M --rate 4M --bs 64K \
	--report "$t/d.json" --latency-log "$t/lat" --no-drop-caches \
	2>"$t/err"; } 2>"$t/time"; rc=$?
el=$(( $(ms) - s ))
[ $rc -eq 0 ] && [ ! -s "$t/err" ]; check dirtier-run $? "exit $rc: $(head -1 "$t/err")"
[ $el -ge 1500 ] && [ $el -le 4000 ]; check dirtier-rate-wall $? "8M at 4M/s took $el ms, want 1500..4000"
cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$t/time")
[ "$cpu" -lt 600 ]; check dirtier-rate-sleeps $? "used $cpu ms CPU in $el ms: busy-waiting?"
jq -e . "$t/d.json" >/dev/null 2>&1; check dirtier-report-parses $? "jq rejects $(head -c 200 "$t/d.json")"
jq -e '.status == "complete" and .bytes_written == 8388608 and .writes == 128
	and .elapsed_s >= 1.9 and .elapsed_s <= 3.5
	and .bw_bytes_per_s > 0.6 * 4194304 and .bw_bytes_per_s <= 1.05 * 4194304
	and .write_lat_p50_us > 0 and .write_lat_p50_us <= .write_lat_p90_us
	and .write_lat_p90_us <= .write_lat_p99_us and .write_lat_p99_us <= .write_lat_max_us
	and (.writes_ge_10ms | type) == "number"
	and (.pagecache_pages_node | add) + .pagecache_nonresident_pages == 2048
	and (.pagecache_pages_node | length) == .nodes' "$t/d.json" >/dev/null
check dirtier-report-values $? "$(jq -c '{status,bytes_written,writes,elapsed_s,bw_bytes_per_s,write_lat_p50_us,pagecache_pages_node,pagecache_nonresident_pages}' "$t/d.json" 2>&1)"
# The dirtier's page-cache census maps its file one group of samples at a time
# (4 MiB unsampled), never the whole file: a whole file mapped and touched at
# once kept node 0's clean cache referenced, so kswapd skipped it and scanned
# on into the dirty pages (the lab's bound-alone: 84,885 pages kept for their
# references in 0.7 s after the write, and immediate reclaim in 1 run of 5).
if command -v strace >/dev/null; then
	strace -f -e trace=mmap -o "$t/census.st" "$bin/dirtier" --file "$t/census" --size 24M \
		--no-drop-caches --report "$t/census.json" >/dev/null 2>"$t/err"; rc=$?
	got=$(awk '/MAP_SHARED/ { n++; split($0, a, ", "); if (a[2] + 0 > mx) mx = a[2] + 0 }
		END { printf "%d %d", n, mx }' "$t/census.st")
	[ $rc -eq 0 ] && [ "$got" = "6 4194304" ] &&
		jq -e '(.pagecache_pages_node | add) + .pagecache_nonresident_pages == 6144' "$t/census.json" >/dev/null
	check dirtier-census-windows $? "exit $rc, file mappings (count, largest): '$got', want '6 4194304'"
	rm -f "$t/census"
else
	fail dirtier-census-windows "strace is not installed (make deps)"
fi
[ "$(wc -l <"$t/lat")" -eq 128 ] &&
	awk 'NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ { exit 1 }' "$t/lat"
check dirtier-latency-log $? "want 128 lines 't_ns latency_ns', got $(wc -l <"$t/lat")"
# The report's percentiles come from a histogram: each must lie between the
# exact nearest-rank value of the logged latencies and 1.6% above it.
sort -n -k2,2 "$t/lat" | awk '{ v[NR] = $2 } END {
	for (i = 1; i <= 3; i++) { p = i == 1 ? 50 : i == 2 ? 90 : 99
		r = int(p * NR / 100); if (r < p * NR / 100) r++
		printf "%d %.3f\n", p, v[r] / 1000 }
	printf "max %.3f\n", v[NR] / 1000 }' >"$t/exact"
jq -r '"50 \(.write_lat_p50_us)\n90 \(.write_lat_p90_us)\n99 \(.write_lat_p99_us)\nmax \(.write_lat_max_us)"' \
	"$t/d.json" >"$t/got"
paste "$t/exact" "$t/got" | awk '$1 != $3 || $4 < $2 - 0.001 || $4 > $2 * 1.016 + 0.001 ||
	($1 == "max" && ($4 - $2 > 0.001 || $2 - $4 > 0.001)) { bad = 1 } END { exit bad }'
check dirtier-percentiles $? "exact vs reported: $(paste "$t/exact" "$t/got" | tr '\n\t' '; ')"
ls "$t" | grep -q '\.tmp\.'; [ $? -ne 0 ]; check report-no-tmp-left $? "$(ls "$t" | grep '\.tmp\.')"

# a bucket as deep as the file lets it all go at once
s=$(ms)
"$bin/dirtier" --file "$t/b" --size 8M --rate 4M --burst 8M --no-drop-caches 2>"$t/err"; rc=$?
el=$(( $(ms) - s ))
[ $rc -eq 0 ] && [ $el -lt 1000 ]; check dirtier-burst $? "exit $rc, 8M with an 8M bucket at 4M/s took $el ms"

# ---- verify: good file passes, each corruption is caught ----
"$bin/dirtier" --file "$t/f" --verify-only --no-drop-caches --report "$t/v.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && jq -e '.verify_blocks == 128 and .verify_bad_blocks == 0 and .bs_bytes == 65536
	and .size_bytes == 8388608' \
	"$t/v.json" >/dev/null
check verify-good-file $? "exit $rc $(head -1 "$t/err") $(jq -c '{verify_blocks,verify_bad_blocks}' "$t/v.json" 2>&1)"
"$bin/dirtier" --file "$t/g" --size 1M --bs 4K --fsync end --verify --no-drop-caches \
	--report "$t/vw.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && jq -e '.verify == "after_write" and .verify_blocks == 256 and .verify_bad_blocks == 0' \
	"$t/vw.json" >/dev/null
check verify-after-write $? "exit $rc $(head -1 "$t/err")"
corrupt() {	# corrupt NAME WANT-FIRST-BAD-OFFSET: verify the damaged $t/c
	local rc
	"$bin/dirtier" --file "$t/c" --verify-only --no-drop-caches --report "$t/c.json" \
		2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && jq -e ".status == \"verify_failed\" and .verify_bad_blocks == 1
		and .verify_first_bad_offset_bytes == $2" "$t/c.json" >/dev/null &&
		grep -q "^dirtier: verify: 1 bad blocks of" "$t/err"
	check "$1" $? "exit $rc, $(jq -c '{verify_bad_blocks,verify_first_bad_offset_bytes}' "$t/c.json" 2>&1)"
}
cp "$t/f" "$t/c"	# one byte flipped in the payload of block 3
printf '\377' | dd of="$t/c" bs=1 seek=$((3 * 65536 + 40000)) conv=notrunc status=none
corrupt verify-detects-flipped-byte $((3 * 65536))
cp "$t/f" "$t/c"	# block 5 overwritten by block 4: right data, wrong place
dd if="$t/f" of="$t/c" bs=64K skip=4 seek=5 count=1 conv=notrunc status=none
corrupt verify-detects-misplaced-block $((5 * 65536))
cp "$t/f" "$t/c"	# a page inside block 7 zeroed, as a lost write would leave it
dd if=/dev/zero of="$t/c" bs=4K seek=$((7 * 16 + 5)) count=1 conv=notrunc status=none
corrupt verify-detects-lost-page $((7 * 65536))
head -c $((127 * 65536 + 100)) "$t/f" >"$t/c"	# torn last block
corrupt verify-detects-short-block $((127 * 65536))

# ---- no lost data: --on-error, lost ranges, --from-report ----
# A preloaded shim fails chosen fsync() calls and block-sized write() calls
# with EIO (FAIL_FSYNC / FAIL_WRITE: 1-based call numbers), as a disk would.
if cc -shared -fPIC -o "$t/eio.so" -x c - -ldl <<'EOF' 2>"$t/err"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int listed(const char *var, unsigned n)
{
	const char *s = getenv(var);
	char want[24], list[256];

	if (!s)
		return 0;
	snprintf(want, sizeof(want), ",%u,", n);
	snprintf(list, sizeof(list), ",%s,", s);
	return strstr(list, want) != NULL;
}
int fsync(int fd)
{
	static unsigned n;
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	if (listed("FAIL_FSYNC", ++n)) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}
ssize_t write(int fd, const void *b, size_t c)
{
	static unsigned n;
	ssize_t (*real)(int, const void *, size_t) =
		(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");

	if (c == 65536 && listed("FAIL_WRITE", ++n)) {
		errno = EIO;
		return -1;
	}
	return real(fd, b, c);
}
EOF
then
	# 128 blocks of 64K, fsync after every 16: fsync 3 fails (blocks 32..47
	# lost), write 100 fails (block 99; blocks 96..99 lost), the rest syncs.
	FAIL_FSYNC=3 FAIL_WRITE=100 LD_PRELOAD=$t/eio.so "$bin/dirtier" --file "$t/e" --size 8M \
		--fsync every=16 --on-error continue --no-drop-caches --report "$t/e.json" 2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$t/err")" = "dirtier: fsync: Input/output error" ] &&
		jq -e '.status == "write_error" and .error_errno == 5 and .fsync_errors == 1
		and .write_errors == 1 and .writes == 127 and .written_end_bytes == 8388608
		and .bytes_synced == 8388608 and .on_error == "continue"
		and .lost_ranges_bytes == [2097152, 3145728, 6291456, 6553600]
		and (.seed | test("^0x[0-9a-f]{16}$"))' "$t/e.json" >/dev/null
	check dirtier-on-error-continue $? "exit $rc '$(head -1 "$t/err")' $(jq -c '{status,error_errno,fsync_errors,write_errors,written_end_bytes,bytes_synced,lost_ranges_bytes}' "$t/e.json" 2>&1)"
	"$bin/dirtier" --from-report "$t/e.json" --no-drop-caches --report "$t/ev.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && jq -e '.verify == "only" and .verify_scope == "written" and .verify_seed_checked
		and .verify_blocks == 108 and .verify_bytes == 108 * 65536 and .verify_bad_blocks == 0
		and .verify_excluded_blocks == 20 and .verify_excluded_bad_blocks == 1
		and .verify_excluded_lost_bytes == 1310720 and .verify_excluded_unsynced_bytes == 0' \
		"$t/ev.json" >/dev/null
	check verify-from-report-skips-lost $? "exit $rc $(head -1 "$t/err") $(jq -c '{verify_blocks,verify_bad_blocks,verify_excluded_blocks,verify_excluded_bad_blocks}' "$t/ev.json" 2>&1)"
	# stop (the default): the failed interval ends the run; synced is what
	# the last good fsync() confirmed
	FAIL_FSYNC=2 LD_PRELOAD=$t/eio.so "$bin/dirtier" --file "$t/e2" --size 8M --fsync every=16 \
		--no-drop-caches --report "$t/e2.json" 2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && jq -e '.status == "write_error" and .written_end_bytes == 2097152
		and .bytes_synced == 1048576 and .lost_ranges_bytes == [1048576, 2097152]' "$t/e2.json" >/dev/null
	check dirtier-on-error-stop $? "exit $rc $(jq -c '{status,written_end_bytes,bytes_synced,lost_ranges_bytes}' "$t/e2.json" 2>&1)"
	"$bin/dirtier" --from-report "$t/e2.json" --scope synced --no-drop-caches --report "$t/e2v.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && jq -e '.verify_scope == "synced" and .verify_blocks == 16 and .verify_bad_blocks == 0
		and .verify_excluded_blocks == 16' "$t/e2v.json" >/dev/null
	check verify-from-report-synced $? "exit $rc $(jq -c '{verify_scope,verify_blocks,verify_excluded_blocks}' "$t/e2v.json" 2>&1)"
else
	fail eio-shim "cannot build the EIO shim: $(head -1 "$t/err")"
fi
# damage inside the scope is caught, damage in a lost range is only counted
cp "$t/e" "$t/c"
printf '\377' | dd of="$t/c" bs=1 seek=$((10 * 65536 + 100)) conv=notrunc status=none
printf '\377' | dd of="$t/c" bs=1 seek=$((40 * 65536 + 100)) conv=notrunc status=none
"$bin/dirtier" --from-report "$t/e.json" --file "$t/c" --no-drop-caches --report "$t/cv.json" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && jq -e '.status == "verify_failed" and .verify_bad_blocks == 1
	and .verify_first_bad_offset_bytes == 655360 and .verify_excluded_bad_blocks == 2' "$t/cv.json" >/dev/null
check verify-from-report-detects $? "exit $rc $(jq -c '{verify_bad_blocks,verify_first_bad_offset_bytes,verify_excluded_bad_blocks}' "$t/cv.json" 2>&1)"
# the same file written again by another run: right places, foreign seed
"$bin/dirtier" --file "$t/e" --size 8M --no-drop-caches 2>/dev/null
"$bin/dirtier" --from-report "$t/e.json" --no-drop-caches --report "$t/fv.json" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && jq -e '.verify_bad_blocks == 108' "$t/fv.json" >/dev/null
check verify-detects-foreign-run $? "exit $rc $(jq -c '{verify_bad_blocks}' "$t/fv.json" 2>&1)"
# a file that is gone is all lost, not bad input
rm -f "$t/e"
"$bin/dirtier" --from-report "$t/e.json" --no-drop-caches --report "$t/mv.json" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && jq -e '.verify_missing and .verify_bad_blocks == 108 and .verify_blocks == 108' \
	"$t/mv.json" >/dev/null
check verify-missing-file $? "exit $rc $(jq -c '{verify_missing,verify_bad_blocks}' "$t/mv.json" 2>&1)"
# the interim report of a writer killed with SIGKILL (as the OOM killer
# would): what it says was written, and synced, is there
"$bin/dirtier" --file "$t/k" --size 64M --rate 8M --fsync every=4 --report-every 0.2 \
	--report "$t/k.json" --no-drop-caches 2>/dev/null & pid=$!
sleep 1.2; kill -KILL $pid; wait $pid 2>/dev/null
ok=1
for sc in written synced; do
	"$bin/dirtier" --from-report "$t/k.json" --scope $sc --no-drop-caches --report "$t/kv-$sc.json" \
		2>"$t/err" || ok=0
done
[ $ok -eq 1 ] && jq -e '.status == "running" and .bytes_synced > 0 and .written_end_bytes >= .bytes_synced' \
	"$t/k.json" >/dev/null &&
	jq -e --slurpfile k "$t/k.json" '.verify_bad_blocks == 0 and .verify_bytes == $k[0].bytes_synced' \
		"$t/kv-synced.json" >/dev/null &&
	jq -e --slurpfile k "$t/k.json" '.verify_bad_blocks == 0 and .verify_bytes == $k[0].written_end_bytes' \
		"$t/kv-written.json" >/dev/null
check verify-interim-report-after-kill $? "$(jq -c '{status,bytes_synced,written_end_bytes}' "$t/k.json" 2>&1) $(jq -c '{verify_bytes,verify_bad_blocks}' "$t/kv-synced.json" 2>&1)"
# bad reports and options: one line, exit 2
"$bin/hog" --size 1M --report "$t/hr.json" 2>/dev/null
sed '/"bytes_synced"/d' "$t/k.json" >"$t/nosync.json"
bad dirtier-bad-on-error "dirtier: --on-error: bad mode 'maybe' (want stop or continue)" \
	dirtier --file f --size 1M --on-error maybe
bad dirtier-scope-needs-report "dirtier: --scope needs --from-report" \
	dirtier --file f --size 1M --scope synced
bad dirtier-bad-scope "dirtier: --scope: bad scope 'all' (want written or synced)" \
	dirtier --from-report "$t/k.json" --scope all
bad dirtier-report-takes-size "dirtier: --from-report takes --size and --bs from the report" \
	dirtier --from-report "$t/k.json" --size 1M
bad dirtier-report-missing "dirtier: --from-report none.json: cannot open: No such file or directory" \
	dirtier --from-report none.json
bad dirtier-report-not-dirtier "dirtier: --from-report $t/hr.json: not a dirtier report" \
	dirtier --from-report "$t/hr.json"
bad dirtier-report-verify-only "dirtier: --from-report $t/kv-synced.json: a verify report, not a writer's" \
	dirtier --from-report "$t/kv-synced.json"
bad dirtier-report-no-key "dirtier: --from-report $t/nosync.json: no key 'bytes_synced'" \
	dirtier --from-report "$t/nosync.json"
if command -v valgrind >/dev/null; then
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
		"$bin/dirtier" --from-report "$t/k.json" --no-drop-caches --report "$t/vgv.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$t/err" ]; check valgrind-dirtier-from-report $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
fi
if make -s -C "$top/workloads" asan >/dev/null 2>&1; then
	ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1 \
		"$asan/dirtier" --from-report "$t/e2.json" --scope synced --no-drop-caches --report "$t/asv.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$t/err" ]; check asan-dirtier-from-report $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:verify_asan_link_order=0 UBSAN_OPTIONS=halt_on_error=1 \
		FAIL_FSYNC=2,5 FAIL_WRITE=3 \
		LD_PRELOAD=$t/eio.so "$asan/dirtier" --file "$t/as" --size 4M --fsync every=8 --on-error continue \
		--no-drop-caches --report "$t/as.json" 2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$t/err")" = "dirtier: write: Input/output error" ]
	check asan-dirtier-on-error $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
fi

# ---- hog ----
"$bin/hog" --size 64M --node 0 --touch random --passes 2 --release \
	--report "$t/h.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ]; check hog-run $? "exit $rc: $(head -1 "$t/err")"
jq -e '.status == "complete" and .bytes_allocated == 67108864 and .chunks_allocated == 64
	and .passes_done == 2 and .chunk_touches == 128 and .chunks_released == 64
	and ((.resident_pages_node | add) * .page_bytes == 67108864)
	and .resident_pages_node[0] * .page_bytes == 67108864
	and .alloc_lat_p50_us > 0 and .alloc_lat_p99_us <= .alloc_lat_max_us
	and .touch_lat_p50_us > 0' "$t/h.json" >/dev/null
check hog-report $? "$(jq -c '{status,bytes_allocated,passes_done,resident_pages_node,alloc_lat_p50_us}' "$t/h.json" 2>&1)"
jq -e '.churn_bytes_requested == 0 and .churn_every_ms == 100 and .churn_chunks == 0 and .churn_s == 0
	and .churn_lat_p99_us == 0' "$t/h.json" >/dev/null
check hog-no-churn $? "$(jq -c '{churn_bytes_requested,churn_chunks,churn_s,churn_lat_p99_us}' "$t/h.json" 2>&1)"
# --churn: 8 MiB given back and re-allocated every 50 ms of a 1 s hold
# (about 20 periods): whole batches, ordered percentiles, the memory whole at
# the end, the first allocation's fields as without churn
"$bin/hog" --size 32M --node 0 --hold 1 --churn 8M --churn-every 50 --report "$t/hc.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && jq -e '.status == "complete" and .churn_bytes_requested == 8388608
	and .churn_every_ms == 50 and .churn_chunks >= 40 and .churn_chunks % 8 == 0
	and .churn_chunks <= 8 * 21 and .churn_s > 0 and .churn_s < .elapsed_s
	and .churn_lat_p50_us > 0 and .churn_lat_p50_us <= .churn_lat_p90_us
	and .churn_lat_p90_us <= .churn_lat_p99_us and .churn_lat_p99_us <= .churn_lat_max_us
	and .churn_lat_mean_us > 0 and .churn_lat_mean_us <= .churn_lat_max_us
	and .chunks_allocated == 32 and .nonresident_pages == 0
	and (.resident_pages_node | add) * .page_bytes == 33554432' "$t/hc.json" >/dev/null
check hog-churn $? "exit $rc $(head -1 "$t/err") $(jq -c '{status,churn_chunks,churn_s,churn_lat_p50_us,churn_lat_p99_us,churn_lat_max_us,nonresident_pages}' "$t/hc.json" 2>&1)"
# which chunks: 2 of the 5 whole chunks of 5.5 MiB each period, cycling
# through them, never the partial sixth (offsets from the mapping's start,
# which the MADV_NOHUGEPAGE call names)
strace -o "$t/hc.strace" -e trace=madvise "$bin/hog" --size 5632K --hold 0.5 --churn 2M --churn-every 40 \
	2>"$t/err"; rc=$?
base=$(sed -n 's/^madvise(0x\([0-9a-f]*\), .*MADV_NOHUGEPAGE.*/\1/p' "$t/hc.strace")
offs=$(sed -n 's/^madvise(0x\([0-9a-f]*\), .*MADV_DONTNEED.*/\1/p' "$t/hc.strace" |
	while read -r a; do printf '%d ' $(( (16#$a - 16#${base:-0}) / 1048576 )); done)
want=$(n=$(wc -w <<<"$offs"); for ((k = 0; k < n; k++)); do printf '%d ' $((k % 5)); done)
[ $rc -eq 0 ] && [ "$(wc -w <<<"$offs")" -ge 10 ] && [ "$offs" = "$want" ] &&
	[ "$(grep -c ', 1048576, MADV_DONTNEED) = 0$' "$t/hc.strace")" -eq "$(wc -w <<<"$offs")" ]
check hog-churn-cycles $? "exit $rc, chunks given back: $offs"
"$bin/hog" --size 8M --duration 0.3 --report "$t/hd.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && jq -e '.touch_s >= 0.3 and .touch_s < 2 and .passes_done >= 1' "$t/hd.json" >/dev/null
check hog-duration $? "exit $rc $(jq -c '{touch_s,passes_done}' "$t/hd.json" 2>&1)"

# ---- signals: the report is written, exit is 128+N ----
s=$(ms)
"$bin/hog" --size 16M --node 0 --ramp 0.2 --hold 30 --report "$t/hs.json" 2>/dev/null & pid=$!
sleep 0.6; kill -TERM $pid; wait $pid; rc=$?
[ $rc -eq 143 ] && [ $(( $(ms) - s )) -lt 5000 ] &&
	jq -e '.status == "interrupted" and .signal == 15 and .chunks_allocated == 16
		and (.resident_pages_node | add) == 4096' "$t/hs.json" >/dev/null
check hog-sigterm-report $? "exit $rc $(jq -c '{status,signal,chunks_allocated}' "$t/hs.json" 2>&1)"
# stopped while churning, with chunks given back half the time: the memory
# is whole in the report, and the churn stops with the hold
s=$(ms)
"$bin/hog" --size 16M --node 0 --hold 30 --churn 8M --churn-every 20 --report "$t/hcs.json" 2>/dev/null & pid=$!
sleep 0.6; kill -TERM $pid; wait $pid; rc=$?
[ $rc -eq 143 ] && [ $(( $(ms) - s )) -lt 5000 ] &&
	jq -e '.status == "interrupted" and .signal == 15 and .churn_chunks > 0 and .churn_chunks % 8 == 0
		and .nonresident_pages == 0 and (.resident_pages_node | add) == 4096' "$t/hcs.json" >/dev/null
check hog-churn-sigterm $? "exit $rc $(jq -c '{status,signal,churn_chunks,nonresident_pages}' "$t/hcs.json" 2>&1)"
# a madvise() that fails (a preloaded stand-in): the churn ends, the report
# says why, exit 1 with one line, and the memory is whole
if cc -shared -fPIC -o "$t/nodontneed.so" -x c - <<'EOF' 2>"$t/err"
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int madvise(void *addr, size_t len, int advice)
{
	if (advice == MADV_DONTNEED) {
		errno = EAGAIN;
		return -1;
	}
	return (int)syscall(SYS_madvise, addr, len, advice);
}
EOF
then
	LD_PRELOAD=$t/nodontneed.so "$bin/hog" --size 8M --hold 0.3 --churn 2M --report "$t/hme.json" 2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$t/err")" = "hog: madvise(MADV_DONTNEED): Resource temporarily unavailable" ] &&
		jq -e '.error == "madvise(MADV_DONTNEED): Resource temporarily unavailable" and .churn_chunks == 0
			and .nonresident_pages == 0 and (.resident_pages_node | add) == 2048' "$t/hme.json" >/dev/null
	check hog-churn-madvise-error $? "exit $rc '$(head -2 "$t/err" | tr '\n' ' ')' $(jq -c '{error,churn_chunks,nonresident_pages}' "$t/hme.json" 2>&1)"
else
	fail hog-churn-madvise-error "cannot build the preload shim: $(head -1 "$t/err")"
fi
"$bin/dirtier" --file "$t/s" --size 64M --rate 4M --report "$t/ds.json" --no-drop-caches \
	2>/dev/null & pid=$!
sleep 0.6; kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && jq -e '.status == "interrupted" and .signal == 2 and .bytes_written > 0
	and .bytes_written < 67108864 and .writes * 65536 == .bytes_written' "$t/ds.json" >/dev/null
check dirtier-sigint-report $? "exit $rc $(jq -c '{status,signal,bytes_written}' "$t/ds.json" 2>&1)"

# ---- --report-every: an interim report while running (what an OOM kill
# would leave behind) ----
"$bin/hog" --size 8M --node 0 --hold 1.5 --report-every 0.2 --report "$t/hi.json" \
	2>/dev/null & pid=$!
sleep 0.7
interim=$(jq -c '{status,chunks_allocated,resident_pages_node}' "$t/hi.json" 2>&1)
wait $pid; rc=$?
[ $rc -eq 0 ] && [ "$interim" = '{"status":"running","chunks_allocated":8,"resident_pages_node":['"$(
	jq -r '.resident_pages_node | map(tostring) | join(",")' "$t/hi.json")"']}' ] &&
	jq -e '.status == "complete" and (.resident_pages_node | add) == 2048' "$t/hi.json" >/dev/null
check hog-report-every $? "exit $rc, interim $interim, final $(jq -c '{status,resident_pages_node}' "$t/hi.json" 2>&1)"

# ---- one-node fallback when numa_available() < 0 ----
# A preloaded numa_available() returning -1 stands in for a kernel without
# NUMA; the programs must carry on as a one-node machine and say so.
if cc -shared -fPIC -o "$t/nonuma.so" -x c - <<'EOF' 2>"$t/err"
int numa_available(void) { return -1; }
EOF
then
	LD_PRELOAD=$t/nonuma.so "$bin/hog" --size 4M --node 0 --report "$t/hn.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && jq -e '.numa_available == false and .nodes == 1
		and .resident_pages_node == [1024]' "$t/hn.json" >/dev/null
	check no-numa-hog $? "exit $rc $(head -1 "$t/err") $(jq -c '{numa_available,nodes,resident_pages_node}' "$t/hn.json" 2>&1)"
	LD_PRELOAD=$t/nonuma.so "$bin/dirtier" --file "$t/n" --size 1M --node 0 --no-drop-caches \
		--report "$t/dn.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && jq -e '.numa_available == false and .nodes == 1
		and .pagecache_pages_node == [256]' "$t/dn.json" >/dev/null
	check no-numa-dirtier $? "exit $rc $(head -1 "$t/err") $(jq -c '{numa_available,nodes,pagecache_pages_node}' "$t/dn.json" 2>&1)"
	LD_PRELOAD=$t/nonuma.so "$bin/dirtier" --file "$t/n" --size 1M --node 1 >/dev/null 2>"$t/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(cat "$t/err")" = "dirtier: --node 1: no such node (nodes 0..0, no NUMA)" ]
	check no-numa-node-range $? "exit $rc '$(cat "$t/err")'"
else
	fail no-numa "cannot build the preload shim: $(head -1 "$t/err")"
fi

# ---- dpfuzz against the stand-in for the debugfs files ----
# Clean on the documented semantics; each planted bug (see dpfuzz-sim.c)
# found, and counted in its own class: KEY must be > 0, and with CLASS
# every accepted invalid write is of that class (or a concurrent one).
sim() {	# sim BUGS ARGS...: dpfuzz on $t/vm through the stand-in; exit in $rc
	local bugs=$1; shift
	DPSIM_DIR=$t/vm DPSIM_BUGS=$bugs LD_PRELOAD=$t/dpsim.so \
		"$bin/dpfuzz" --dir "$t/vm" --max-findings 0 "$@" >"$t/out" 2>"$t/err"; rc=$?
}
if cc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$t/dpsim.so" "$top/tests/host/dpfuzz-sim.c" \
	-ldl -lpthread 2>"$t/err"; then
	sim "" --report "$t/fz.json"
	[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ ! -s "$t/out" ] &&
	jq -e '.status == "complete" and .findings == 0 and .io_errors == 0 and .resyncs == 0
		and .pressure_invalid_tried >= 1000 and .mode_invalid_tried >= 1000
		and .recovery_invalid_tried >= 1000 and .node_invalid_tried >= 1000
		and .nodes_invalid_tried >= 1000 and .all_invalid_rejected == .all_invalid_tried
		and .all_invalid_accepted_bad == 0 and .all_invalid_wrong_errno == 0
		and .all_invalid_state_changed == 0 and .pressure_valid_valid_ok >= 20
		and .mode_valid_valid_ok >= 20 and .recovery_valid_valid_ok >= 20
		and .all_valid_valid_failed == 0 and .reader_checks > 0 and .pressure_writes_taken > 0
		and ([to_entries[] | select(.key | test("^(pressure|mode|recovery|node|nodes)_[a-z_]+_tried$"))
		      | select(.key | test("_(valid|invalid)_tried$") | not) | .value] | min >= 70)
		and .initial_mode == "global" and .initial_pressure == 1024 and .nodes == 2' \
		"$t/fz.json" >/dev/null
	check dpfuzz-sim-clean $? "exit $rc $(head -2 "$t/err") $(jq -c '{findings,first_finding,all_invalid_tried,all_valid_valid_ok}' "$t/fz.json" 2>&1)"
	for b in plus:all_plus_sign_accepted_bad:plus_sign nul:all_nul_byte_accepted_bad:nul_byte \
		 wrap:all_huge_accepted_bad:huge offset:all_partial_accepted_bad:partial \
		 ro:nodes_read_only_accepted_bad:read_only ignore:all_valid_valid_failed: \
		 mode:mode_invalid_state_changed: efault:all_bad_buffer_wrong_errno: \
		 decay:pressure_invalid_state_changed: racy:pressure_valid_valid_failed:; do
		IFS=: read -r bug key cls <<<"$b"
		sim "$bug" --count 200 --valid-every 5 --report "$t/fz-$bug.json"
		if [ -n "$cls" ]; then
			only=".all_invalid_accepted_bad == .all_${cls}_accepted_bad + .all_concurrent_accepted_bad"
			[ "$bug" = ro ] && only=".node_read_only_accepted_bad > 0"
		else
			only=".all_invalid_accepted_bad == 0"
		fi
		[ $rc -eq 1 ] && jq -e ".$key > 0 and .findings > 0 and $only" "$t/fz-$bug.json" >/dev/null
		check "dpfuzz-finds-$bug" $? "exit $rc, $(jq -c "{$key, all_invalid_accepted_bad, findings, first_finding}" "$t/fz-$bug.json" 2>&1)"
	done
	# jiffies that lag the clock dpfuzz reads (a guest's late tick under TCG
	# on a busy host) are not a finding
	DPSIM_LAG_MS=150 sim "" --count 2000 --valid-every 2 --report "$t/fz-lag.json"
	[ $rc -eq 0 ] && jq -e '.findings == 0 and .recovery_valid_valid_ok >= 20' "$t/fz-lag.json" >/dev/null
	check dpfuzz-tolerates-jiffies-lag $? "exit $rc, $(jq -c '{findings, first_finding}' "$t/fz-lag.json" 2>&1)"
	# a CI rehearsal (2026-12-06, lab/70-slurm's fuzz-debugfs guest) read a
	# node 1 step above a band with 0.25 s of slack: its jiffies ran 256 ms
	# ahead of the interval measured around the write and the read
	DPSIM_LAG_MS=400 sim "" --count 2000 --valid-every 2 --report "$t/fz-lag400.json"
	[ $rc -eq 0 ] && jq -e '.findings == 0 and .recovery_valid_valid_ok >= 20' "$t/fz-lag400.json" >/dev/null
	check dpfuzz-tolerates-400ms-jiffies-lag $? "exit $rc, $(jq -c '{findings, first_finding}' "$t/fz-lag400.json" 2>&1)"
	# EACCES for a read-only file is a refusal too (a user without
	# CAP_DAC_OVERRIDE), not a finding
	sim eacces --count 200 --report "$t/fz-eacces.json"
	[ $rc -eq 0 ] && jq -e '.node_invalid_rejected == .node_invalid_tried and .node_invalid_tried >= 200' \
		"$t/fz-eacces.json" >/dev/null
	check dpfuzz-eacces-is-refusal $? "exit $rc $(head -1 "$t/err")"
	# findings go to stderr, one line each, at most --max-findings
	DPSIM_DIR=$t/vm DPSIM_BUGS=plus LD_PRELOAD=$t/dpsim.so "$bin/dpfuzz" --dir "$t/vm" \
		--count 200 --max-findings 3 >/dev/null 2>"$t/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$t/err")" -eq 3 ] && grep -q '^dpfuzz: dirty_pressure [a-z_]*: write "+' "$t/err"
	check dpfuzz-findings-lines $? "exit $rc: $(head -3 "$t/err" | tr '\n' '|')"
	# the stand-in reads like seq_file: a value written between two read()s of
	# one open file does not tear it ("1\n" then "0\n" of "10\n"); a torn
	# read was a 1-in-200 "cannot parse" line in dpfuzz-findings-lines
	got=$(DPSIM_DIR=$t/vm LD_PRELOAD=$t/dpsim.so python3 -c '
import os, sys
p = sys.argv[1] + "/dirty_pressure_recovery"
r = os.open(p, os.O_RDONLY)
a = os.read(r, 1)
w = os.open(p, os.O_WRONLY)
os.write(w, b"10")
os.close(w)
print(repr(a + os.read(r, 64)))' "$t/vm" 2>&1)
	[ "$got" = "b'1\\n'" ]; check dpfuzz-sim-read-snapshot $? "got $got, want b'1\\n'"
	# SIGTERM: the report is written, exit 143
	DPSIM_DIR=$t/vm LD_PRELOAD=$t/dpsim.so "$bin/dpfuzz" --dir "$t/vm" --count 10000000 \
		--report "$t/fs.json" 2>/dev/null & pid=$!
	sleep 0.5; kill -TERM $pid; wait $pid; rc=$?
	[ $rc -eq 143 ] && jq -e '.status == "interrupted" and .signal == 15 and .all_invalid_tried > 0' \
		"$t/fs.json" >/dev/null
	check dpfuzz-sigterm-report $? "exit $rc $(jq -c '{status,signal,all_invalid_tried}' "$t/fs.json" 2>&1)"
else
	fail dpfuzz-sim "cannot build tests/host/dpfuzz-sim.c: $(head -1 "$t/err")"
fi

# ---- dpfuzz's winner among racing valid writes (tests/host/dpfuzz-racer.c) ----
if cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -I "$top/workloads" -o "$t/dpracer" \
	"$top/tests/host/dpfuzz-racer.c" "$top/workloads/common.c" -lnuma -lpthread 2>"$t/err"; then
	out=$("$t/dpracer" 2>&1); rc=$?
	[ $rc -eq 0 ] && [ "$out" = PASS ]
	check dpfuzz-racer-pick $? "exit $rc: $out"
else
	fail dpfuzz-racer-pick "cannot build tests/host/dpfuzz-racer.c: $(head -1 "$t/err")"
fi

# ---- truncloop: rounds, report, the file left empty ----
"$bin/truncloop" --file "$t/tl" --size 1M --bs 16K --rounds 5 --warmup 2 --node 0 \
	--report "$t/tl.json" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ -f "$t/tl" ] && [ ! -s "$t/tl" ]
check truncloop-run $? "exit $rc, file $(stat -c %s "$t/tl" 2>&1) bytes: $(head -1 "$t/err")"
jq -e '.program == "truncloop" and .status == "complete" and .rounds == 5 and .warmup_rounds == 2
	and .writes == 320 and .bytes_written == 5242880 and .pages_written == 5242880 / .page_bytes
	and .node == 0 and .policy == "bind" and .ns_per_page > 0
	and (.ns_per_page - (.write_ns_per_page + .truncate_ns_per_page) | fabs) < 0.01
	and (.pages_per_s * .ns_per_page / 1e9 - 1 | fabs) < 0.001
	and .round_ns_per_page_min <= .round_ns_per_page_p50
	and .round_ns_per_page_p50 <= .round_ns_per_page_max * 1.0001
	and .round_ns_per_page_min <= .round_ns_per_page_median
	and .round_ns_per_page_median <= .round_ns_per_page_max
	and .round_ns_per_page_min <= .round_ns_per_page_mean90
	and .round_ns_per_page_mean90 <= .round_ns_per_page_max
	and .write_lat_p50_us <= .write_lat_max_us' "$t/tl.json" >/dev/null
check truncloop-report $? "$(jq -c '{status,rounds,writes,bytes_written,pages_written,ns_per_page,write_ns_per_page,truncate_ns_per_page,pages_per_s}' "$t/tl.json" 2>&1)"
# the exact median and mean90 are the rounds' own numbers, not a histogram's
# buckets.  Each round writes as many pages, so ns_per_page is the mean of
# the rounds' ns per page; mean90 drops the slowest 10% (floor(0.9 x 5) = 4
# rounds kept), here exactly the max: (5 x ns_per_page - max) / 4.
jq -e '(.round_ns_per_page_mean90 - (5 * .ns_per_page - .round_ns_per_page_max) / 4 | fabs) < 0.01
	and .round_ns_per_page_mean90_rounds == 4' "$t/tl.json" >/dev/null
check truncloop-round-statistics $? "$(jq -c '{rounds,ns_per_page,round_ns_per_page_min,round_ns_per_page_median,round_ns_per_page_mean90,round_ns_per_page_mean90_rounds,round_ns_per_page_max}' "$t/tl.json" 2>&1)"
s=$(ms)
"$bin/truncloop" --file "$t/tl" --size 256K --duration 0.5 --report "$t/tld.json" 2>"$t/err"; rc=$?
el=$(( $(ms) - s ))
[ $rc -eq 0 ] && [ $el -ge 500 ] && [ $el -le 3000 ] &&
	jq -e '.status == "complete" and .rounds >= 1 and .elapsed_s >= 0.5 and .duration_s_requested == 0.5
		and .rounds_requested == 0 and .node == -1 and .policy == "default"' "$t/tld.json" >/dev/null
check truncloop-duration $? "exit $rc after $el ms: $(jq -c '{status,rounds,elapsed_s}' "$t/tld.json" 2>&1)"
"$bin/truncloop" --file "$t/tl" --size 64M --bs 64K --rounds 100000 --report "$t/tls.json" 2>/dev/null & pid=$!
sleep 0.5; kill -TERM $pid; wait $pid; rc=$?
[ $rc -eq 143 ] && jq -e '.status == "interrupted" and .signal == 15' "$t/tls.json" >/dev/null
check truncloop-sigterm-report $? "exit $rc $(jq -c '{status,signal,rounds}' "$t/tls.json" 2>&1)"

# ---- valgrind and ASan/UBSan on short runs of each ----
# short_PROG BINDIR NAME [WRAPPER...]
short_dirtier() { local b=$1 n=$2; shift 2
	"$@" "$b/dirtier" --file "$t/$n" --size 2M --bs 16K --rate 16M --fsync every=8 \
		--verify --no-drop-caches --report "$t/$n.json" --latency-log "$t/$n.lat"; }
short_truncloop() { local b=$1 n=$2; shift 2
	"$@" "$b/truncloop" --file "$t/$n" --size 1M --bs 16K --rounds 3 --node 0 --report "$t/$n.json"; }
short_hog() { local b=$1 n=$2; shift 2
	"$@" "$b/hog" --size 8M --node 0 --touch random --passes 2 --ramp 0.1 --release \
		--hold 0.3 --churn 2M --churn-every 20 --report "$t/$n.json"; }
# every class; under valgrind not bad_buffer: valgrind reports the write()
# of an unreadable buffer (on purpose) as an error
dpclasses=out_of_range,negative,plus_sign,huge,non_numeric,trailing_garbage,nul_byte,empty,oversize,partial,concurrent,read_only
short_dpfuzz() { local b=$1 n=$2 cl=$dpclasses,bad_buffer; shift 2
	[ "$1" = valgrind ] && cl=$dpclasses
	DPSIM_DIR=$t/vm LD_PRELOAD=$t/dpsim.so ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 \
		"$@" "$b/dpfuzz" --dir "$t/vm" --count 60 --threads 2 --valid-every 5 --classes "$cl" \
		--report "$t/$n.json"; }
if command -v valgrind >/dev/null; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible"
	for p in dirtier hog dpfuzz truncloop; do
		$vg "$bin/$p" --help >/dev/null 2>"$t/err"; rc1=$?
		"short_$p" "$bin" "vg$p" $vg 2>"$t/err"; rc=$?
		[ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ ! -s "$t/err" ]
		check "valgrind-$p" $? "exit $rc1/$rc: $(head -3 "$t/err" | tr '\n' ' ')"
	done
	jq -e '.churn_chunks > 0 and .chunks_released == 8' "$t/vghog.json" >/dev/null
	check valgrind-hog-churned $? "$(jq -c '{churn_chunks,chunks_released}' "$t/vghog.json" 2>&1)"
else
	fail valgrind "valgrind not installed"
fi
out=$(make -s -C "$top/workloads" asan 2>&1); rc=$?
if [ $rc -eq 0 ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	for p in dirtier hog dpfuzz truncloop; do
		"short_$p" "$asan" "as$p" 2>"$t/err"; rc=$?
		[ $rc -eq 0 ] && [ ! -s "$t/err" ]
		check "asan-$p" $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	done
	jq -e '.churn_chunks > 0 and .chunks_released == 8' "$t/ashog.json" >/dev/null
	check asan-hog-churned $? "$(jq -c '{churn_chunks,chunks_released}' "$t/ashog.json" 2>&1)"
	# interim reports while half the memory is not yet touched: the
	# placement query must stay inside its buffers for absent pages
	"$asan/hog" --size 16M --ramp 0.6 --report-every 0.1 --report "$t/ar.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$t/err" ]
	check asan-hog-interim-partial $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	# stopped while churning, interim reports in the half periods that
	# leave chunks given back
	"$asan/hog" --size 16M --hold 30 --churn 4M --churn-every 20 --report-every 0.05 \
		--report "$t/acs.json" 2>"$t/err" & pid=$!
	sleep 1; kill -TERM $pid; wait $pid; rc=$?
	[ $rc -eq 143 ] && [ ! -s "$t/err" ] && jq -e '.churn_chunks > 0 and .nonresident_pages == 0' "$t/acs.json" >/dev/null
	check asan-hog-churn-sigterm $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	bad asan-bad-input "dirtier: --size: bad size '1X' (want an integer with optional K, M, G or T suffix)" \
		../bin-asan/dirtier --file f --size 1X
else
	fail asan-build "make asan exit $rc: $(printf '%s' "$out" | head -2)"
fi
exit $failed
