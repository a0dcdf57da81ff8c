# cp: the seed's plain large sequential write, no hog.  The pressure stays
# at or above 512 (the seed reports ~512 during cp /dev/zero); throughput
# against mode off is compared in `make bench` (these machines are noisy).
CLAIM="a plain large sequential write keeps the pressure >= 512"
TOPOLOGIES="2node-sym uma"
TIMEOUT=360

workload() {
	start dd dd if=/dev/zero of="$TEST_DIR/big" bs=1M count=1536
	finish dd
	sync
	# dd's own rate (its write()s, throttling included): the report's
	# throughput for the mode comparison in `make bench`
	metric dd_bw_bytes_per_s "$(awk -F', ' '/ copied, / { s = $(NF - 1) + 0; if (s > 0) printf "%.0f", ($1 + 0) / s }' \
		"$OUT/workload-dd.log")"
	return 0
}

#CHECK# dd_complete         guest.exit_dd == 0
#CHECK# dd_rate_measured    guest.dd_bw_bytes_per_s > 0
#CHECK# pressure_stays_high trace.pressure.global.min >= 512 if kernel=patched
