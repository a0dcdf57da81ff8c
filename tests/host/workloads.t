#!/bin/bash
# Host checks of the workloads (dirtier, hog): build, --help, one check per
# bad-input class (exact line, exit 2), pacing, reports, verify against a
# corrupted file, signals, valgrind and ASan/UBSan.  No kernel needed.
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
if [ $rc -ne 0 ] || [ ! -x "$bin/dirtier" ] || [ ! -x "$bin/hog" ]; then
	fail build "make -C workloads exit $rc: $(printf '%s' "$out" | head -3)"
	exit 1
fi
[ -z "$out" ]; check build-quiet $? "make printed: $(printf '%s' "$out" | head -2)"
before=$(stat -c %Y.%s "$bin/dirtier" "$bin/hog")
out=$(make -C "$top/workloads" 2>&1)
after=$(stat -c %Y.%s "$bin/dirtier" "$bin/hog")
[ -z "$out" ] && [ "$before" = "$after" ]
check build-incremental $? "second make printed '$out' or rebuilt"

# ---- --help ----
for p in dirtier hog; do
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
[ ! -e "$t/f" ]; check bad-input-writes-nothing $? "a rejected dirtier created its --file"

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

# ---- valgrind and ASan/UBSan on short runs of each ----
# short_PROG BINDIR NAME [WRAPPER...]
short_dirtier() { local b=$1 n=$2; shift 2
	"$@" "$b/dirtier" --file "$t/$n" --size 2M --bs 16K --rate 16M --fsync every=8 \
		--verify --no-drop-caches --report "$t/$n.json" --latency-log "$t/$n.lat"; }
short_hog() { local b=$1 n=$2; shift 2
	"$@" "$b/hog" --size 8M --node 0 --touch random --passes 2 --ramp 0.1 --release \
		--report "$t/$n.json"; }
if command -v valgrind >/dev/null; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible"
	for p in dirtier hog; do
		$vg "$bin/$p" --help >/dev/null 2>"$t/err"; rc1=$?
		"short_$p" "$bin" "vg$p" $vg 2>"$t/err"; rc=$?
		[ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ ! -s "$t/err" ]
		check "valgrind-$p" $? "exit $rc1/$rc: $(head -3 "$t/err" | tr '\n' ' ')"
	done
else
	fail valgrind "valgrind not installed"
fi
out=$(make -s -C "$top/workloads" asan 2>&1); rc=$?
if [ $rc -eq 0 ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	for p in dirtier hog; do
		"short_$p" "$asan" "as$p" 2>"$t/err"; rc=$?
		[ $rc -eq 0 ] && [ ! -s "$t/err" ]
		check "asan-$p" $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	done
	# interim reports while half the memory is not yet touched: the
	# placement query must stay inside its buffers for absent pages
	"$asan/hog" --size 16M --ramp 0.6 --report-every 0.1 --report "$t/ar.json" 2>"$t/err"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$t/err" ]
	check asan-hog-interim-partial $? "exit $rc: $(head -3 "$t/err" | tr '\n' ' ')"
	bad asan-bad-input "dirtier: --size: bad size '1X' (want an integer with optional K, M, G or T suffix)" \
		../bin-asan/dirtier --file f --size 1X
else
	fail asan-build "make asan exit $rc: $(printf '%s' "$out" | head -2)"
fi
exit $failed
