#!/bin/sh
# PID 1 of launch/accel.py's probe guest: a guest that reaches this line has
# booted a lab kernel through to userspace on the host's 9p root, which is
# what "this accelerator runs a standard guest" means to dplab.  The host
# watches the console for the marker and then stops QEMU; if it does not, the
# kernel panics when init exits and -no-reboot ends QEMU.
mount -t devtmpfs dev /dev 2>/dev/null
echo "dplab-accel-probe: userspace up" >/dev/console 2>/dev/null || echo "dplab-accel-probe: userspace up"
