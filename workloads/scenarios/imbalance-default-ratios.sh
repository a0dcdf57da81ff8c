# imbalance-default-ratios: imbalance under the kernel's default ratios
# (dirty_ratio 20, dirty_background_ratio 10) instead of 60/10: the limits a
# user gets without tuning anything.  A baseline (issue 15): the report's
# Baselines section sets the series in imbalance against the stock kernel
# here, and the series here against the stock kernel here.
CLAIM="under the default ratios the series lowers only the node whose reclaim met dirty pages"
BASELINE_OF="imbalance"
TOPOLOGIES="2node-asym"
SYSCTL="vm.dirty_ratio=20 vm.dirty_background_ratio=10"
TIMEOUT=420

. "$LAB/workloads/scenarios/lib/imbalance.sh"
