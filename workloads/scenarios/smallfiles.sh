# smallfiles: the workload that locked the 2010 series up: fs_mark creating
# one-byte files on XFS with 4 writers.  No task may be held in
# balance_dirty_pages for more than 1 s at a stretch; files/s against mode
# off is compared in `make bench`.
#
# One-byte files never bring the dirty count near the default limits on
# their own (0 balance_dirty_pages calls, measured), so the 2010 worst case
# is forced: in modes global and node the pressure is written to 0 every
# second, as if reclaim kept meeting dirty pages, and the floors must keep
# the writers moving.  In mode off the write is tracked but not applied.
# The limits are small (4 MiB, background 2 MiB) so that the dirty count
# crosses the freerun ceiling in every run: with the defaults and pressure
# 0 the ceiling is one second of the estimated write bandwidth (it starts
# at 100 MiB/s), and a quiet host finished fs_mark in 8.5 s without one
# balance_dirty_pages call, so nothing was tested.
CLAIM="fs_mark on XFS with 4 writers: no task held in balance_dirty_pages > 1 s"
TOPOLOGIES="2node-xfs"
SYSCTL="vm.dirty_bytes=4194304 vm.dirty_background_bytes=2097152"
TIMEOUT=300

FSMARK_FILES=4000
FSMARK_LOOPS=2
. "$LAB/workloads/scenarios/lib/smallfiles.sh"
