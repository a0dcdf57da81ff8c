# bad-bootparam: dirty_pressure=garbage on the kernel command line, last (so
# after run.py's own dirty_pressure=<mode>).  Patch 1 (dp_setup) and the
# admin guide: an unknown value keeps the default, global, and logs one
# warning "dirty_pressure: unknown mode 'garbage', using 'global'".  Run it
# in mode node to see the fall-back: an ignored value would leave node.
CLAIM="an unknown dirty_pressure= boot value falls back to global with exactly one warning and no WARN"
TOPOLOGIES="2node-sym"
CMDLINE="dirty_pressure=garbage"
TIMEOUT=90

workload() {
	case $(dp dirty_pressure_mode) in
	off) c=0 ;; global) c=1 ;; node) c=2 ;; *) c=-1 ;;
	esac
	metric mode_code $c
	# the last dirty_pressure= of the command line is the garbage one
	metric cmdline_garbage "$(tr ' ' '\n' </proc/cmdline | grep '^dirty_pressure=' | tail -1 | grep -c '^dirty_pressure=garbage$')"
	dmesg >"$OUT/dmesg.txt"
	metric warning_lines "$(grep -c "dirty_pressure: unknown mode 'garbage', using 'global'" "$OUT/dmesg.txt")"
	# every printk of the series carries its pr_fmt prefix
	metric series_printk_lines "$(grep -c 'dirty_pressure: ' "$OUT/dmesg.txt")"
	# the echoes of the command line aside (x86's "Command line:" and
	# "Kernel command line:"), "garbage" shows once: an "Unknown kernel
	# command line parameters" line would be a second
	metric garbage_lines "$(grep -vi 'command line:' "$OUT/dmesg.txt" | grep -c garbage)"
	metric warn_splats "$(grep -cE 'WARNING:|cut here|Call Trace' "$OUT/dmesg.txt")"
	# an early parameter is not handed on to init
	metric init_env_garbage "$(tr '\0' '\n' </proc/1/environ | grep -c '^dirty_pressure=')"
	metric pressure "$(dp dirty_pressure)"
	# the run-time interface is unaffected
	dp dirty_pressure_mode node
	[ "$(dp dirty_pressure_mode)" = node ] && ok=1 || ok=0
	dp dirty_pressure_mode global
	[ "$(dp dirty_pressure_mode)" = global ] || ok=0
	metric runtime_mode_switch $ok
	return 0
}

#CHECK# cmdline_has_garbage    guest.cmdline_garbage == 1
#CHECK# mode_is_default        guest.mode_code == 1
#CHECK# one_warning            guest.warning_lines == 1
#CHECK# one_series_printk      guest.series_printk_lines == 1
#CHECK# garbage_mentioned_once guest.garbage_lines == 1
#CHECK# no_warn_splat          guest.warn_splats == 0
#CHECK# not_passed_to_init     guest.init_env_garbage == 0
#CHECK# pressure_untouched     guest.pressure == 1024
#CHECK# runtime_switch_works   guest.runtime_mode_switch == 1
