# imbalance-bg-bytes: imbalance with dirty_background_bytes set to one second
# of the test disk's write throttle (30 MiB on 2node-asym), what an
# administrator would do instead of the series: the flushers start once a
# second of writeback is dirty, so reclaim should meet less of it.  The
# other knob stays as in imbalance (dirty_ratio 60), so the two differ in
# that one setting.  A baseline (issue 15): see imbalance-default-ratios.
CLAIM="with dirty_background_bytes at one second of the disk the series lowers only the node whose reclaim met dirty pages"
BASELINE_OF="imbalance"
TOPOLOGIES="2node-asym"
SYSCTL="vm.dirty_ratio=60"
TIMEOUT=420

# The throttle the disk really has (run.py --disk-write-bps may change it);
# setting the bytes knob zeroes dirty_background_ratio.
imbalance_tuning() {
	bps=${DISK_THROTTLE_BPS:-}
	[ -n "$bps" ] && [ "$bps" -gt 0 ] || { echo "imbalance-bg-bytes: no disk throttle (DISK_THROTTLE_BPS)" >&2; return 1; }
	sysctl -q -w vm.dirty_background_bytes="$bps"
	metric dirty_background_bytes "$(sysctl -n vm.dirty_background_bytes)"
	metric dirty_background_ratio "$(sysctl -n vm.dirty_background_ratio)"
}

. "$LAB/workloads/scenarios/lib/imbalance.sh"

#CHECK# background_bytes_set guest.dirty_background_bytes > 0
#CHECK# background_ratio_cleared guest.dirty_background_ratio == 0
