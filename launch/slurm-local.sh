#!/bin/bash
# A one-node Slurm cluster on this machine, for trying ENGINE=slurm and for
# the lab test that checks it (tests/lab/70-slurm.t).  Everything lives in
# DIR: munge's key and socket, slurm.conf, state, spool, logs, pid files.
# The daemons listen on 127.0.0.1 only, on ports picked free at start, and
# run as root (this is a throwaway cluster, not a site's).
#
#   launch/slurm-local.sh start DIR   start munged, slurmctld, slurmd; wait until the node is idle
#   launch/slurm-local.sh stop DIR    stop what start started (and any job steps left)
#   launch/slurm-local.sh crash DIR   kill slurmd, its job steps and everything they run, as a
#                                     node that loses power would (the test's node failure)
#   launch/slurm-local.sh node-down DIR stop slurmd alone: its job steps go on running, as when
#                                     a site stops slurmd for maintenance
#   launch/slurm-local.sh node-up DIR start slurmd again after crash; wait until the node is back
#   launch/slurm-local.sh env DIR     print `export SLURM_CONF=...` for a shell
#
# Clients (sbatch, squeue, make matrix ENGINE=slurm) find the cluster through
# SLURM_CONF=DIR/slurm.conf.  Needs Debian's slurm-wlm and munge (make deps-slurm).
set -u
cmd=${1:-}
dir=${2:-}
usage() { echo "usage: launch/slurm-local.sh start|stop|crash|node-down|node-up|env DIR" >&2; exit 2; }
case ${cmd:-} in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ -n "$cmd" ] && [ -n "$dir" ] || usage
case $cmd in start|stop|crash|node-down|node-up|env) ;; *) usage ;; esac
node=dplab0

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_of() { [ -s "$dir/$1.pid" ] && cat "$dir/$1.pid"; }

alive() { local p; p=$(pid_of "$1") && kill -0 "$p" 2>/dev/null; }

# every descendant of the given pids (children first is not needed: all get SIGKILL)
descendants() {
	local p c
	for p in "$@"; do
		for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
			echo "$c"
			descendants "$c"
		done
	done
}

# the slurmstepd processes of this cluster: their command line or environment names DIR's spool
steps() {
	local p
	for p in $(pgrep -x slurmstepd 2>/dev/null); do
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$dir/slurm.conf" && echo "$p"
	done
}

kill_steps() {
	local s
	s=$(steps)
	[ -n "$s" ] || return 0
	# shellcheck disable=SC2046
	kill -KILL $s $(descendants $s) 2>/dev/null
	return 0
}

stop_daemon() {
	local p i
	p=$(pid_of "$1") || return 0
	kill -TERM "$p" 2>/dev/null
	for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null
	rm -f "$dir/$1.pid"
}

write_conf() {
	local cpus mem
	cpus=$(nproc)
	mem=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	cat >"$dir/slurm.conf" <<EOF
# written by launch/slurm-local.sh: a one-node cluster on 127.0.0.1
ClusterName=dplab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# a node that stops answering is noticed in seconds, not the default 5 minutes
SlurmdTimeout=10
SlurmctldTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=lab Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
	local p
	for p in munged slurmctld slurmd; do
		command -v "$p" >/dev/null || { echo "slurm-local: $p not found (make deps-slurm)" >&2; exit 2; }
	done
	if alive slurmctld; then
		echo "slurm-local: a cluster is already running in $dir" >&2
		exit 2
	fi
	mkdir -p "$dir/state" "$dir/spool"
	dir=$(cd "$dir" && pwd)
	[ -s "$dir/munge.key" ] || dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
	chmod 400 "$dir/munge.key"
	write_conf
	export SLURM_CONF=$dir/slurm.conf
	munged --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
		--log-file="$dir/munged.log" --seed-file="$dir/munged.seed" --force ||
		{ echo "slurm-local: munged did not start (see $dir/munged.log)" >&2; exit 1; }
	slurmctld -i -f "$dir/slurm.conf" ||
		{ echo "slurm-local: slurmctld did not start (see $dir/slurmctld.log)" >&2; stop; exit 1; }
	node_up || { stop; exit 1; }
}

# start slurmd; wait until the controller sees the node idle (or mixed:
# jobs requeued after a crash may start on it at once)
node_up() {
	local i state
	export SLURM_CONF=$dir/slurm.conf
	slurmd -N "$node" -f "$dir/slurm.conf" ||
		{ echo "slurm-local: slurmd did not start (see $dir/slurmd.log)" >&2; return 1; }
	for i in $(seq 200); do
		state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
		case $state in idle|mixed|allocated)
			echo "slurm-local: node $node $state; export SLURM_CONF=$dir/slurm.conf"
			return 0 ;;
		esac
		sleep 0.3
	done
	echo "slurm-local: node $node not up after 60 s (state '$state'; see $dir/slurmd.log)" >&2
	return 1
}

stop() {
	kill_steps
	stop_daemon slurmd
	stop_daemon slurmctld
	stop_daemon munged
	return 0
}

crash() {
	local p
	p=$(pid_of slurmd) && kill -KILL "$p" 2>/dev/null
	kill_steps
	rm -f "$dir/slurmd.pid"
}

[ -d "$dir" ] || [ "$cmd" = start ] || { echo "slurm-local: no cluster directory $dir" >&2; exit 2; }
[ "$cmd" = start ] || dir=$(cd "$dir" && pwd)
case $cmd in
start) start ;;
stop) stop ;;
crash) crash ;;
node-down) stop_daemon slurmd ;;
node-up) alive slurmctld || { echo "slurm-local: no controller running in $dir" >&2; exit 2; }
	alive slurmd && { echo "slurm-local: slurmd is already running in $dir" >&2; exit 2; }
	node_up || exit 1 ;;
env) echo "export SLURM_CONF=$dir/slurm.conf" ;;
esac
