# slowup-fast: slowup with dirty_pressure_recovery=32 steps/s, over 12 s
# idle: the rate follows the knob, not a constant.  Same workload as slowup.
CLAIM="recovery follows dirty_pressure_recovery (32 steps/s) once reclaim stops meeting dirty folios"
TOPOLOGIES="2node-asym"
# Not mode node: there (series v2) the node domain throttles the bound
# dirtier against its node, reclaim no longer meets its dirty pages and the
# mechanism this scenario checks is not exercised (bound-alone measured
# 0 writepage calls in mode node); that claim is bound-alone's.
MODES="off global"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=420

RECOVERY=32
IDLE_S=12
. "$LAB/workloads/scenarios/lib/slowup.sh"
