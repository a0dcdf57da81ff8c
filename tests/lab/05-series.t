#!/bin/sh
# The series before anything boots: it applies to pristine 6.1 without fuzz
# and every patch is checkpatch --strict clean (launch/check-series.sh
# --quick; the config-variant compile tests are `make check-series`).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/launch/check-series.sh" --quick
