#!/bin/sh
# PID 1 of a dplab guest.  The root filesystem is the host's, read-only over
# 9p, so every host program runs here unchanged; writable places are tmpfs.
# The results directory is the 9p share "dplabout" at /mnt/out; the host put
# job.env (what to run) there.  This script records the guest's view of the
# topology, snapshots vmstat, runs the scenario under trace-cmd, snapshots
# again, writes guest-status and powers off.  Nothing in here may hang: the
# host's timeout is the last resort, not the plan.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs run /run
mount -t tmpfs mnt /mnt
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /mnt/out /mnt/test
# Builtins only after the trigger: the power-off path shuts the 9p root down
# first, so an exec'd sleep fails (127), init exits and the kernel panics.
poweroff_now() { sync; echo o >/proc/sysrq-trigger; while :; do :; done; }
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 dplabout /mnt/out; then
	echo "dplab: cannot mount the results share" >/dev/console
	poweroff_now
fi
OUT=/mnt/out
. $OUT/job.env
# The lab's own tree, shared on its own: a checkout under /tmp or /mnt would
# be hidden by the tmpfs mounts above.
mkdir -p "$LAB" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro dplablab "$LAB" ||
	echo "dplab: cannot mount the lab tree at $LAB" >/dev/console
export OUT LAB MODE SCENARIO SCENARIO_FILE KERNEL_FLAVOUR SLOW_MOTION DISK_THROTTLE_BPS TEST_DIR=/mnt/test BIN="$LAB/build/bin"
status() { echo "$*" >>$OUT/guest-status; echo "dplab: $*" >/dev/console; }
stage() { echo "dplab: [$(cut -d' ' -f1 /proc/uptime)s] $*" >/dev/console; }

stage "userspace up"
# The guest's own view of the topology, compared with the file on the host:
# "node N cpulist=... memtotal_kb=... distance=10,20,...".  One awk reads
# every node's files (a few processes per node took a 64-node TCG guest
# 10 s, and up to a minute on a busy host).
nodefiles() { for _d in /sys/devices/system/node/node[0-9]*; do
	for _f in "$@"; do echo "$_d/$_f"; done; done; }
# shellcheck disable=SC2046
awk 'FNR == 1 { n = FILENAME; sub(/\/[a-z]+$/, "", n); sub(/.*\/node/, "", n)
		if (!(n in seen)) { seen[n] = 1; order[++k] = n } }
	FILENAME ~ /\/cpulist$/ { cpus[n] = $0 }
	FILENAME ~ /\/meminfo$/ && $3 == "MemTotal:" { kb[n] = $4 }
	FILENAME ~ /\/distance$/ { d = $0; gsub(/ /, ",", d); dist[n] = d }
	END { for (i = 1; i <= k; i++) { n = order[i]
		printf "node %s cpulist=%s memtotal_kb=%s distance=%s\n", n, cpus[n], kb[n], dist[n] } }' \
	$(nodefiles cpulist meminfo distance) >$OUT/guest-topology.txt
uname -r >$OUT/kernel-release
cat /proc/cmdline >$OUT/guest-cmdline

# The test disk: formatted on the host, mounted fresh each run.
if [ -b /dev/vda ]; then
	mount -t "$TEST_FS" /dev/vda $TEST_DIR || status "error: cannot mount /dev/vda ($TEST_FS)"
fi

# LRU=mglru (make matrix LRU=mglru): the multi-generational LRU for this run;
# lru-gen records what the kernel says, so a cell that did not get it shows.
if [ "$LRU" = mglru ]; then
	echo y >/sys/kernel/mm/lru_gen/enabled 2>/dev/null || status "error: cannot enable lru_gen"
fi
cat /sys/kernel/mm/lru_gen/enabled >$OUT/lru-gen 2>/dev/null

snapshot() {
	_when=$1
	# /proc/vmstat's node counters lag by the per-CPU deltas not yet folded
	# into them (up to the stat threshold per CPU: a smoke run's
	# nr_written read 65,524 for 65,536 pages written and synced);
	# writing stat_refresh (root, CONFIG_SMP) folds them first.  The
	# unfolded read is kept: the difference is the drift it removed.
	cat /proc/vmstat >$OUT/vmstat.$1.unfolded
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	cat /proc/vmstat >$OUT/vmstat.$1
	# every node's vmstat and meminfo into nodeN.vmstat.$1 and
	# nodeN.meminfo.$1, by one awk (see the topology view above)
	# shellcheck disable=SC2046
	awk -v pre="$OUT/" -v suf=".$1" 'FNR == 1 { if (o != "") close(o)
			o = FILENAME; sub(/\/[a-z]+$/, "", o); sub(/.*\//, "", o)
			o = pre o "." (FILENAME ~ /\/vmstat$/ ? "vmstat" : "meminfo") suf }
		{ print > o }' $(nodefiles vmstat meminfo)
	# each kswapd's CPU time (utime + stime of /proc/PID/stat, in clock
	# ticks) and pid: "kswapdN ticks pid" per line, the tick rate on the
	# first line; a pid that changed is a kswapd stopped and started again
	# (set -- reuses the positional parameters: $1 is saved in _when)
	{ echo "clk_tck $(getconf CLK_TCK 2>/dev/null || echo 100)"
	  for _s in /proc/[0-9]*/stat; do
		read -r _l <"$_s" 2>/dev/null || continue
		case $_l in *" (kswapd"[0-9]*") "*) ;; *) continue ;; esac
		# shellcheck disable=SC2086
		set -- ${_l#*) }
		_c=${_l#*(}; echo "${_c%%)*} $((${12} + ${13})) ${_l%% *}"
	  done; } >$OUT/kswapd.$_when
}

# Scenario: shell file defining workload() and, optionally, setup() and
# SYSCTL/EVENTS, sourced as written.  Its #CHECK# lines (and its lib files')
# are for the host's collect.py; here they are comments.
. "$LAB/launch/guest-lib.sh"
. "$SCENARIO_FILE"
# Slow motion (run.py --slow-motion N) stretches writeback's clocks with the
# disk: at the stock 30 s expiry the flusher cleaned a KCSAN dirtier's pages
# (1.3 MiB/s) long before reclaim reached them, and the squeezed node's
# reclaim met 0 dirty pages even with the disk at 2 MiB/s.
if [ "${SLOW_MOTION:-1}" -gt 1 ]; then
	for k in vm.dirty_expire_centisecs vm.dirty_writeback_centisecs; do
		kv=$k=$(($(sysctl -n "$k") * SLOW_MOTION))
		sysctl -q -w "$kv" >/dev/null || status "error: sysctl $kv"
	done
fi
for kv in $SYSCTL; do sysctl -q -w "$kv" >/dev/null || status "error: sysctl $kv"; done
# DISK_QUEUE="32x512K" (a scenario setting): the test disk's block queue as
# a slow real device has it.  Without it virtio-blk takes 256 requests of up
# to its max_sectors_kb, which QEMU's write throttle then holds: hundreds of
# MiB under writeback that a real 30 MiB/s device would never accept at once
# (README, "What the test disk models").  What the queue is, set or default,
# goes into metrics.guest.disk_*.
if [ -n "${DISK_QUEUE:-}" ]; then
	if disk_queue "$DISK_QUEUE" 2>>$OUT/disk-queue.log; then
		metric disk_queue_applied 1
	else
		metric disk_queue_applied 0
		status "error: DISK_QUEUE=$DISK_QUEUE not applied: $(tail -1 $OUT/disk-queue.log)"
	fi
fi
disk_queue_record
command -v setup >/dev/null && { setup || status "error: setup failed"; }

events=""
for e in $DEFAULT_EVENTS $EVENTS; do events="$events -e $e"; done
# -v negates the -e options after it; an event the scenario names is kept.
off=""
for e in $PER_PAGE_EVENTS; do
	case " $EVENTS " in *" $e "*) ;; *) off="$off -e $e";; esac
done
[ -n "$off" ] && events="$events -v$off"
snapshot before
stage "workload start (scenario $SCENARIO, mode $MODE)"
# trace-cmd runs the workload as its command, so recording spans it exactly;
# per-CPU recorders stream to the share instead of holding guest memory.
# trace-cmd's own exit status does not carry the command's, so the traced
# shell leaves the workload's status in a file.
echo 255 >/tmp/dplab-workload-exit
trace-cmd record -q -b "${TRACE_BUFFER_KB:-4096}" $events -o $OUT/trace.dat \
	/bin/sh -c '. "$LAB/launch/guest-lib.sh"; . "$SCENARIO_FILE"; workload; echo $? >/tmp/dplab-workload-exit' \
	>$OUT/workload.log 2>&1
trc=$?
rc=$(cat /tmp/dplab-workload-exit)
[ "$trc" -eq 0 ] || status "error: trace-cmd record exited $trc"
sample_stop
stage "workload end (exit $rc)"
snapshot after
echo "$rc" >$OUT/workload-exit
command -v teardown >/dev/null && teardown >>$OUT/workload.log 2>&1
# No lost data: with the workload over (leftovers stopped, fault injection
# off), every file a dirtier wrote is reread from the disk after sync and
# drop_caches and checked block by block against what its report says was
# written (or, after injected faults, what an fsync() confirmed).
stop_leftovers
fault_stop
if ls $OUT/report-*.json >/dev/null 2>&1; then
	stage "verify start"
	verify_all
	stage "verify end"
fi
write_metrics
sync
umount $TEST_DIR 2>/dev/null
status "done"
poweroff_now
