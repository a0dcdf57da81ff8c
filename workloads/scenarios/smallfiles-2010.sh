# smallfiles-2010: the case that locked the 2010 series up, as it was:
# fs_mark creating one-byte files with 4 writers on XFS (issue 15 item 3).
# smallfiles sets 4 MiB limits, which puts the freerun ceiling (3 MiB)
# under the series' floor of one second of writeout: the scaling never acts
# there, so that check cannot fail because of the series.  Here the limits
# are 256 MiB (background 128 MiB): the stock freerun ceiling, 192 MiB, is
# above the floor (about one second of the 30 MiB/s disk), so with the
# pressure forced to 0 (modes global and node, every second, as if reclaim
# kept meeting dirty pages) the scaled ceiling is the floor and the writers
# are throttled against it; in mode off the same writes are tracked but
# not applied.  40,000 one-byte files dirty about 160 MiB of page cache,
# under the stock ceiling and well over the floor.  No writer may be held
# in balance_dirty_pages() for more than 1 s at a stretch; files/s against
# mode off is the bench's (`make bench SCENARIOS=smallfiles-2010`).
CLAIM="fs_mark with 1-byte files and 4 writers on XFS, pressure 0 and the ceiling above the floor: no task held in balance_dirty_pages > 1 s"
TOPOLOGIES="2node-xfs"
SYSCTL="vm.dirty_bytes=268435456 vm.dirty_background_bytes=134217728"
TIMEOUT=420

FSMARK_FILES=10000
FSMARK_LOOPS=1
. "$LAB/workloads/scenarios/lib/smallfiles.sh"

# The premise: the stock ceiling was not reached (in mode off nothing
# entered the throttle), so what throttles in global and node is the
# series' scaling.
#CHECK# stock_ceiling_not_reached trace.balance_dirty_pages.calls == 0 if mode=off
