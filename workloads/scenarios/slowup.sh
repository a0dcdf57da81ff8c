# slowup: after the pressure has fallen and the hog has exited, the pressure
# recovers at dirty_pressure_recovery steps per second (default 1, as in
# 2010) from the last time reclaim met dirty folios on node 0, from time
# stamps: no kswapd wake-ups caused by recovery.
CLAIM="recovery at dirty_pressure_recovery steps/s once reclaim stops meeting dirty folios, with no extra kswapd wake-ups"
TOPOLOGIES="2node-asym"
# Not mode node: there (series v2) the node domain throttles the bound
# dirtier against its node, reclaim no longer meets its dirty pages and the
# mechanism this scenario checks is not exercised (bound-alone measured
# 0 writepage calls in mode node); that claim is bound-alone's.
MODES="off global"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=420
RECOVERY=1
IDLE_S=25

. "$LAB/workloads/scenarios/lib/slowup.sh"
