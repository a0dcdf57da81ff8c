#!/bin/sh
# The KUnit suite dirty_pressure, booted under QEMU: one PASS/FAIL per case.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/launch/kunit.sh" lab --tap
