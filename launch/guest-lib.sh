# Functions for scenario files, sourced in the guest before the scenario (by
# guest-init.sh and again in the traced workload shell).  POSIX sh.
#
#   start NAME CMD...      run CMD in the background as workload NAME
#   finish NAME            wait for it; its exit status becomes metric
#                          exit_NAME (137 = SIGKILL, the OOM killer)
#   stop NAME              SIGTERM it, then finish
#   metric KEY VALUE       a number for result.json (metrics.guest.KEY)
#   dp FILE [VALUE]        read or write /sys/kernel/debug/vm/FILE
#   sample_start [SEC]     sample the dirty pressure every SEC (default 1):
#                          $OUT/pressure.tsv "t_s effective node0 node1 ..."
#   sample_stop
#   wait_kswapd_idle NID [TIMEOUT]  wait until node NID's kswapd sleeps
#   report NAME            the --report path for workload NAME
#   node_dirty_kb NID      Dirty of node NID in kB
DP=/sys/kernel/debug/vm
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
	''|*[!0-9.-]*) echo "metric: $1: '$2' is not a number" >&2; return 1 ;;
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

node_dirty_kb() { sed -n 's/.* Dirty: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node$1/meminfo; }
