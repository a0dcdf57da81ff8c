# crash-verify: boot 2 of the crash test, on boot 1's disk (run.py --disk
# OUT1/test-disk.img --append dplab_record=OUT1; see crash-sync).  Every
# dirtier report boot 1 left in OUT1 is verified with scope synced: the
# blocks an fsync() confirmed must all be there after the crash and journal
# recovery.  What was written but not yet confirmed is reread too and
# reported as excluded (data.bytes_excluded_unsynced, excluded_bad_blocks),
# never counted as loss.  Without dplab_record= there is nothing to verify
# and the run fails.
CLAIM="boot 2: after the crash every block fsync() confirmed is intact"
TOPOLOGIES="2node-asym"
STANDALONE="boot 2 of the crash test, on boot 1's disk; tests/lab/50-faults.t runs the pair"
TIMEOUT=120

workload() {
	rec=$(cmdline_arg dplab_record)
	if [ -z "$rec" ] || [ ! -d "$rec" ]; then
		echo "crash-verify: no dplab_record=DIR (boot 1's OUT) on the kernel command line" >&2
		return 1
	fi
	n=0
	for r in "$rec"/report-*.json; do
		[ -f "$r" ] && grep -q '"program": "dirtier"' "$r" || continue
		name=${r##*/report-}; name=${name%.json}
		cp "$r" "$OUT/record-$name.json" && n=$((n + 1))
	done
	metric records "$n"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rc=0
	for r in "$OUT"/record-*.json; do
		[ -f "$r" ] || continue
		name=${r##*/record-}; name=${name%.json}
		verify_report "$r" "boot1-$name" synced || rc=1
	done
	metric verify_failed "$rc"
	return 0
}

#CHECK# records_found        guest.records >= 2
#CHECK# files_verified       data.files_verified >= 2
#CHECK# no_file_missing      data.files_missing == 0
# 128 MiB of the first writer and at least 16 MiB of the second
#CHECK# synced_bytes_verified data.bytes_verified >= 150994944
