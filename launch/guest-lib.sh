# Functions for scenario files, sourced in the guest before the scenario (by
# guest-init.sh and again in the traced workload shell).  POSIX sh.
#
#   start NAME CMD...      run CMD in the background as workload NAME
#   finish NAME            wait for it; its exit status becomes metric
#                          exit_NAME (137 = SIGKILL, the OOM killer)
#   stop NAME              SIGTERM it, then finish
#   metric KEY VALUE       a number for result.json (metrics.guest.KEY)
#   dp FILE [VALUE]        read or write /sys/kernel/debug/vm/FILE
#   node_pressure NID      node NID's own pressure (dirty_pressure_nodes)
#   sample_start [SEC]     sample the dirty pressure every SEC (default 1):
#                          $OUT/pressure.tsv "t_s effective node0 node1 ..."
#   sample_stop
#   wait_kswapd_idle NID [TIMEOUT]  wait until node NID's kswapd sleeps
#   report NAME            the --report path for workload NAME
#   node_dirty_kb NID      Dirty of node NID in kB
#   node_writeback_kb NID  Writeback of node NID in kB
#   meminfo_sample_start [SEC]  sample every node's Dirty and Writeback
#                          (and /proc/meminfo's) every SEC (default 0.5):
#                          $OUT/nodemem.tsv "t_s dirty_kb writeback_kb
#                          node0_dirty_kb node0_writeback_kb ..."
#   meminfo_sample_stop    stop it; metrics {,nodeN_}{dirty,writeback,
#                          dirty_writeback}_peak_kb (the sum's peak is of
#                          one sample, not the sum of two peaks)
#   disk_queue SPEC        limit the test disk's block queue to SPEC,
#                          "REQUESTSxSIZE" (e.g. 32x512K: nr_requests 32,
#                          max_sectors_kb 512); guest-init applies the
#                          scenario's DISK_QUEUE with it
#                          (metric disk_queue_applied 1 or 0)
#   disk_queue_record      metrics disk_nr_requests, disk_max_sectors_kb,
#                          disk_hw_max_sectors_kb, disk_hw_queue_depth: what
#                          the test disk's queue is (set or default)
#
# Data, faults and crashes (workloads/README.md, "No lost data"):
#   verify_scope written|synced   what the end-of-run verification claims for
#                          every dirtier report (default written; fault_start
#                          switches to synced)
#   verify_report REPORT NAME [SCOPE]   dirtier --from-report REPORT into
#                          $OUT/verify-NAME.json (guest-init does this for
#                          every $OUT/report-*.json a dirtier wrote)
#   fault_start TIMES [PERCENT] [PID...]  fail_make_request on the test disk:
#                          at most TIMES bios fail, each with PERCENT (100)
#                          chance; with PIDs only bios those tasks submit
#   fault_stop             stop it; metric faults_injected (bios failed), also
#                          in $FAULTS_INJECTED
#   crash                  keep the metrics, say so, panic (sysrq c): with
#                          panic=-1 and -no-reboot QEMU exits
#   cmdline_arg NAME       the value of NAME= on the kernel command line
#   write_metrics          /tmp/dplab-metrics -> $OUT/guest-metrics.json
DP=/sys/kernel/debug/vm
FI=/sys/kernel/debug/fail_make_request
TEST_DEV=${TEST_DEV:-vda}
PIDDIR=/tmp/dplab-pids
mkdir -p $PIDDIR

report() { echo "$OUT/report-$1.json"; }

start() {
	_name=$1; shift
	"$@" >>"$OUT/workload-$_name.log" 2>&1 &
	echo $! >$PIDDIR/$_name
}

finish() {
	[ -f $PIDDIR/$1 ] || { echo "finish: no workload $1" >&2; return 1; }
	wait "$(cat $PIDDIR/$1)"
	_rc=$?
	metric "exit_$1" $_rc
	rm -f $PIDDIR/$1
	return $_rc
}

stop() {
	[ -f $PIDDIR/$1 ] && kill "$(cat $PIDDIR/$1)" 2>/dev/null
	finish "$1"
}

metric() {
	case $2 in
	''|*[!0-9.-]*|*.*.*|?*-*|-|.|-.) echo "metric: $1: '$2' is not a number" >&2; return 1 ;;
	esac
	# bc writes .5 and -.5: JSON wants a digit first
	case $2 in
	.*) set -- "$1" "0$2" ;;
	-.*) set -- "$1" "-0${2#-}" ;;
	esac
	echo "$1 $2" >>/tmp/dplab-metrics
}

dp() {
	if [ $# -eq 2 ]; then
		echo "$2" >$DP/$1
	else
		cat $DP/$1
	fi
}

node_pressure() { awk -v n="$1" '$1 == n { print $2 }' "$DP/dirty_pressure_nodes"; }

uptime_s() { cut -d' ' -f1 /proc/uptime; }

sample_start() {
	_every=${1:-1}
	(
		echo "t_s effective $(cut -d' ' -f1 $DP/dirty_pressure_nodes 2>/dev/null | sed 's/^/node/' | tr '\n' ' ')"
		while :; do
			# Reading dirty_pressure applies any recovery that is due.
			echo "$(uptime_s) $(cat $DP/dirty_pressure 2>/dev/null || echo nan) $(cut -d' ' -f2 $DP/dirty_pressure_nodes 2>/dev/null | tr '\n' ' ')"
			sleep "$_every"
		done
	) >"$OUT/pressure.tsv" 2>/dev/null &
	echo $! >$PIDDIR/.sampler
}

sample_stop() {
	[ -f $PIDDIR/.sampler ] && kill "$(cat $PIDDIR/.sampler)" 2>/dev/null
	rm -f $PIDDIR/.sampler
}

kswapd_pid() { pgrep -x "kswapd$1"; }

wait_kswapd_idle() {
	_pid=$(kswapd_pid "$1")
	_t=${2:-60}
	while [ "$_t" -gt 0 ]; do
		# S (sleeping) on kswapd's wait queue, twice in a row 0.5 s apart.
		if [ "$(cut -d' ' -f3 /proc/$_pid/stat)" = S ]; then
			sleep 0.5
			[ "$(cut -d' ' -f3 /proc/$_pid/stat)" = S ] && return 0
		fi
		sleep 1; _t=$((_t - 1))
	done
	return 1
}

meminfo_sample_start() {
	_every=${1:-0.5}
	(
		# one awk per sample reads every file: a shell loop of seds per
		# node cost the TCG guest more than the sample is worth
		_files=$(ls -d /sys/devices/system/node/node[0-9]* | sort -V | sed 's|$|/meminfo|')
		printf 't_s\tdirty_kb\twriteback_kb'
		for _f in $_files; do _n=${_f%/meminfo}; _n=${_n##*/}; printf '\t%s_dirty_kb\t%s_writeback_kb' "$_n" "$_n"; done
		echo
		while :; do
			awk -v t="$(uptime_s)" 'BEGIN { printf "%s", t }
				FILENAME == "/proc/meminfo" && $1 == "Dirty:" { d = $2 }
				FILENAME == "/proc/meminfo" && $1 == "Writeback:" { printf "\t%s\t%s", d, $2 }
				FILENAME != "/proc/meminfo" && $3 == "Dirty:" { d = $4 }
				FILENAME != "/proc/meminfo" && $3 == "Writeback:" { printf "\t%s\t%s", d, $4 }
				END { print "" }' /proc/meminfo $_files
			sleep "$_every"
		done
	) >"$OUT/nodemem.tsv" 2>/dev/null &
	echo $! >$PIDDIR/.memsampler
}

meminfo_sample_stop() {
	[ -f $PIDDIR/.memsampler ] || return 0
	kill "$(cat $PIDDIR/.memsampler)" 2>/dev/null
	rm -f $PIDDIR/.memsampler
	# peaks per column pair: dirty, writeback, and dirty+writeback of one sample
	awk -F'\t' 'NR == 1 { nf = NF; for (i = 2; i <= NF; i++) h[i] = $i; next }
		NF == nf { for (i = 2; i < NF; i += 2) {
			if ($i > d[i]) d[i] = $i; if ($(i + 1) > w[i]) w[i] = $(i + 1)
			if ($i + $(i + 1) > s[i]) s[i] = $i + $(i + 1) } }
		END { for (i = 2; i in h; i += 2) { p = h[i]; sub(/dirty_kb$/, "", p)
			print p "dirty_peak_kb", d[i] + 0; print p "writeback_peak_kb", w[i] + 0
			print p "dirty_writeback_peak_kb", s[i] + 0 } }' "$OUT/nodemem.tsv" |
	while read -r _k _v; do metric "$_k" "$_v"; done
}

disk_queue() {
	_q=/sys/block/$TEST_DEV/queue
	_n=${1%%x*}; _s=${1#*x}
	case $1 in *x*) ;; *) echo "disk_queue: '$1' is not REQUESTSxSIZE (e.g. 32x512K)" >&2; return 1 ;; esac
	case $_n in ''|*[!0-9]*|0) echo "disk_queue: requests '$_n' must be a positive number" >&2; return 1 ;; esac
	case $_s in
	*[Kk]) _kb=${_s%?} ;;
	*[Mm]) _kb=$(( ${_s%?} * 1024 )) ;;
	*) echo "disk_queue: size '$_s' needs K or M (e.g. 512K)" >&2; return 1 ;;
	esac
	# The kernel lowers nr_requests of a queue without an I/O scheduler
	# (virtio-blk here) but cannot raise it past the device's tags; it
	# refuses max_sectors_kb above max_hw_sectors_kb.  A refusal is an
	# error of the run, not a silent default.
	echo "$_n" >$_q/nr_requests || { echo "disk_queue: nr_requests $_n refused" >&2; return 1; }
	echo "$_kb" >$_q/max_sectors_kb || { echo "disk_queue: max_sectors_kb $_kb refused" >&2; return 1; }
	[ "$(cat $_q/nr_requests)" = "$_n" ] && [ "$(cat $_q/max_sectors_kb)" = "$_kb" ] || {
		echo "disk_queue: read back $(cat $_q/nr_requests)x$(cat $_q/max_sectors_kb)K, not $1" >&2; return 1; }
}

disk_queue_record() {
	_q=/sys/block/$TEST_DEV/queue
	[ -d $_q ] || return 0
	metric disk_nr_requests "$(cat $_q/nr_requests)"
	metric disk_max_sectors_kb "$(cat $_q/max_sectors_kb)"
	metric disk_hw_max_sectors_kb "$(cat $_q/max_hw_sectors_kb)"
	# the tags of hardware queue 0: what the device accepts at once
	[ -r /sys/block/$TEST_DEV/mq/0/nr_tags ] && metric disk_hw_queue_depth "$(cat /sys/block/$TEST_DEV/mq/0/nr_tags)"
	metric disk_queue_set "$([ -n "${DISK_QUEUE:-}" ] && echo 1 || echo 0)"
}

node_dirty_kb() { sed -n 's/.* Dirty: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node$1/meminfo; }
node_writeback_kb() { sed -n 's/.* Writeback: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node$1/meminfo; }

# metric KEY VALUE lines -> one flat JSON object (last value of a key wins).
write_metrics() {
	[ -s /tmp/dplab-metrics ] || return 0
	awk '{v[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; k[n++] = $1 } }
	     END { printf "{"; for (i = 0; i < n; i++) printf "%s\"%s\": %s", (i ? ", " : ""), k[i], v[k[i]]; print "}" }' \
		/tmp/dplab-metrics >$OUT/guest-metrics.json
}

cmdline_arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -1; }

verify_scope() {
	case $1 in
	written|synced) echo "$1" >/tmp/dplab-verify-scope ;;
	*) echo "verify_scope: '$1' is not written or synced" >&2; return 1 ;;
	esac
}

# One line per verification in $OUT/verify.log: NAME SCOPE EXIT REPORT.
verify_report() {
	_scope=${3:-$(cat /tmp/dplab-verify-scope 2>/dev/null || echo written)}
	"$BIN/dirtier" --from-report "$1" --scope "$_scope" --report "$OUT/verify-$2.json" \
		>>"$OUT/verify.log.err" 2>&1
	_rc=$?
	echo "$2 $_scope $_rc $1" >>"$OUT/verify.log"
	return $_rc
}

fault_start() {
	[ -d $FI ] && [ -e /sys/block/$TEST_DEV/make-it-fail ] || {
		echo "fault_start: no $FI or /sys/block/$TEST_DEV/make-it-fail (kernel without FAIL_MAKE_REQUEST?)" >&2
		return 1
	}
	case $1 in ''|*[!0-9]*|0) echo "fault_start: TIMES '$1' must be a positive number" >&2; return 1 ;; esac
	# Writes that fail are not the writer's to vouch for: from here on the
	# run verifies only what an fsync() confirmed.
	verify_scope synced
	_times=$1; _pct=${2:-100}; shift; [ $# -gt 0 ] && shift
	# verbose 1: one ratelimited line per failure, no stack dump (a
	# "Call Trace:" would count as a kernel problem)
	echo 1 >$FI/verbose
	echo 0 >$FI/space
	echo 1 >$FI/interval
	if [ $# -gt 0 ]; then
		echo Y >$FI/task-filter
		for _p in "$@"; do echo 1 >/proc/$_p/make-it-fail; done
	else
		echo N >$FI/task-filter
	fi
	echo "$_times" >$FI/times
	echo "$_pct" >$FI/probability
	echo "$_times" >/tmp/dplab-fault-times
	echo 1 >/sys/block/$TEST_DEV/make-it-fail
	metric fault_start_s "$(uptime_s)"
	echo "dplab: fault injection on $TEST_DEV: $_times bios at $_pct%${1:+, tasks $*}" >/dev/console
}

fault_stop() {
	[ -f /tmp/dplab-fault-times ] || return 0
	echo 0 >/sys/block/$TEST_DEV/make-it-fail
	echo 0 >$FI/probability
	_left=$(cat $FI/times)
	FAULTS_INJECTED=$(( $(cat /tmp/dplab-fault-times) - _left ))
	metric faults_injected $FAULTS_INJECTED
	metric fault_stop_s "$(uptime_s)"
	rm -f /tmp/dplab-fault-times
	echo "dplab: fault injection off ($_left of the budget left)" >/dev/console
}

crash() {
	write_metrics
	echo "crash requested at $(uptime_s) s" >"$OUT/crash-requested"
	echo "crash requested" >>"$OUT/guest-status"
	# through the kernel log, so it is ordered with the panic's lines (a
	# write to /dev/console can come out after them)
	echo "dplab: crash requested" >/dev/kmsg
	echo c >/proc/sysrq-trigger
	echo "crash: the kernel did not crash" >&2
	return 1
}

# Workloads a scenario started and never finished: SIGTERM (a dirtier then
# writes its report), up to 10 s, then SIGKILL.  They are not our children
# here, so no wait: poll.
stop_leftovers() {
	for _f in $PIDDIR/*; do
		[ -f "$_f" ] || continue
		_p=$(cat "$_f")
		kill "$_p" 2>/dev/null && echo "dplab: stopping leftover workload ${_f##*/} ($_p)" >/dev/console
		_t=20
		while kill -0 "$_p" 2>/dev/null && [ $_t -gt 0 ]; do sleep 0.5; _t=$((_t - 1)); done
		kill -9 "$_p" 2>/dev/null
		rm -f "$_f"
	done
}

# After the workload: every file a dirtier reported on, reread from the disk
# after sync and drop_caches.  A report the scenario already verified
# (verify-NAME.json exists) is left alone.
verify_all() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for _r in "$OUT"/report-*.json; do
		[ -f "$_r" ] && grep -q '"program": "dirtier"' "$_r" || continue
		_n=${_r##*/report-}; _n=${_n%.json}
		[ -f "$OUT/verify-$_n.json" ] || verify_report "$_r" "$_n"
	done
}
