#!/usr/bin/env python3
"""Which QEMU accelerator a dplab guest boots under: ACCEL=auto|kvm|tcg|icount.

  accel.py [--accel V] [--image BZIMAGE] [--check-only] [--qemu-args] [--quiet] [--prog NAME]

V defaults to the environment's ACCEL, else auto.  Prints the accelerator
(kvm, tcg or icount; with --qemu-args, QEMU's arguments for it) on stdout and one
line on stderr saying which and why ("accel: tcg (auto: /dev/kvm missing)").
A bad value, or kvm asked for where it does not run a guest: one line, exit 2.
icount is TCG on one host thread with the guest's clock driven by its
instruction count (-icount shift=3): while the guest runs, a guest
nanosecond is an eighth of an instruction whatever the host's speed or
load; while it idles its clock follows the host's (not sleep=off, which
skips an idle guest ahead to its next timer: waiting on the host's I/O, a
guest then saw "task mount blocked for more than 120 seconds").  What a
busy guest times is then a count of instructions, the measure for a cost
on a shared or slow host where
wall-clock rates scatter by tens of percent (make bench SCENARIOS=cost
TOPOS=2node-1cpu,64node-1cpu ACCEL=icount).  Instructions, not cycles: cache
misses and contention are not in it.  One vCPU only: with two, QEMU 7.2's
icount never brings the second up (the guest stops at "x86: Booting SMP
configuration"), so run.py refuses a topology with more than one.
--check-only checks without booting (the value; for kvm, the device and a
cached probe) and prints nothing when all is well.

auto and kvm boot a probe guest under KVM (a lab bzImage up to a marker its
init prints from the host's 9p root: launch/accel-probe-init.sh) unless the
device is missing or cannot be opened; a device that opens but cannot run a
guest (some nested hosts) fails the probe.  The result is cached in
build/accel-probe-HOSTNAME.json (one file per host: Slurm nodes may share
build/), keyed on the device (path, inode, device number), the host's boot id
and the QEMU binary, so a matrix probes once per host boot.
Delete the file to probe again.  For tests: DPLAB_KVM_DEV (the device,
default /dev/kvm), DPLAB_QEMU (the QEMU binary), DPLAB_ACCEL_CACHE (the cache
file), DPLAB_ACCEL_PROBE_TIMEOUT (seconds, default 30),
DPLAB_ACCEL_PROBE_ACCEL (the probe's -accel, default kvm: tcg exercises the
probe guest itself where KVM is missing).
"""
import argparse
import fcntl
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCELS = ("auto", "kvm", "tcg", "icount")
# shift 3: 8 ns per instruction, a 125 MIPS guest clock, which keeps a 20 s
# guest loop to about as long on TCG here
ICOUNT_SHIFT = 3
QBOOT = "/usr/share/qemu/qboot.rom"
MARKER = "dplab-accel-probe: userspace up"
PROBE_INIT = os.path.join(TOP, "launch", "accel-probe-init.sh")
QEMU_ARGS = {"kvm": ["-accel", "kvm", "-cpu", "host"],
             "tcg": ["-accel", "tcg,thread=multi", "-cpu", "max"],
             "icount": ["-accel", "tcg,thread=single", "-icount", f"shift={ICOUNT_SHIFT}",
                        "-cpu", "max"]}


class AccelError(Exception):
    """One line for the user; the caller exits 2."""


def qemu_binary():
    return os.environ.get("DPLAB_QEMU") or "qemu-system-x86_64"


def kvm_device():
    return os.environ.get("DPLAB_KVM_DEV") or "/dev/kvm"


def cache_path():
    return os.environ.get("DPLAB_ACCEL_CACHE") or \
        os.path.join(TOP, "build", f"accel-probe-{socket.gethostname()}.json")


def probe_timeout():
    v = os.environ.get("DPLAB_ACCEL_PROBE_TIMEOUT", "30")
    try:
        t = float(v)
    except ValueError:
        t = -1
    if not 0 < t <= 600:
        raise AccelError(f"DPLAB_ACCEL_PROBE_TIMEOUT must be seconds in (0, 600], not '{v}'")
    return t


def requested(value=None):
    """The requested accelerator: value, else $ACCEL, else auto."""
    v = value if value is not None else os.environ.get("ACCEL", "")
    v = (v or "auto").strip()
    if v not in ACCELS:
        raise AccelError(f"ACCEL must be auto, kvm, tcg or icount, not '{v}'")
    return v


def qemu_args(accel):
    return list(QEMU_ARGS[accel])


def device_state(dev):
    """(stat, None) when the device exists and opens read-write, else
    (None, why)."""
    try:
        st = os.stat(dev)
    except FileNotFoundError:
        return None, f"{dev} missing"
    except OSError as e:
        return None, f"{dev} not usable: {e.strerror}"
    try:
        fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
        os.close(fd)
    except OSError as e:
        return None, f"{dev} not openable: {e.strerror}"
    return st, None


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def cache_key(dev, st):
    """What could change whether the device runs a guest: the device node
    (a module reload makes a new one), the host boot, the QEMU binary."""
    q = shutil.which(qemu_binary()) or qemu_binary()
    try:
        qs = os.stat(q)
        qid = [os.path.realpath(q), qs.st_size, int(qs.st_mtime)]
    except OSError:
        qid = [q, None, None]
    return {"hostname": socket.gethostname(),
            "boot_id": _read("/proc/sys/kernel/random/boot_id").strip(),
            "device": dev, "device_id": [st.st_dev, st.st_ino, st.st_rdev],
            "qemu": qid}


def default_image():
    """A built lab kernel to probe with when the caller names none."""
    for p in ("patched/obj", "stock/obj", "patched/obj-*", "stock/obj-*"):
        for d in sorted(glob.glob(os.path.join(TOP, "build", p))):
            img = os.path.join(d, "arch/x86/boot/bzImage")
            if os.path.isfile(img):
                return img
    return None


def probe(image, timeout, accel=None):
    """Boot the probe guest; (ok, why, seconds)."""
    accel = accel or os.environ.get("DPLAB_ACCEL_PROBE_ACCEL") or "kvm"
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dplab-accel-probe.") as tmp:
        console = os.path.join(tmp, "console.log")
        cmd = [qemu_binary()] + qemu_args(accel) + ["-smp", "1", "-m", "256M"]
        if os.path.exists(QBOOT):
            cmd += ["-bios", QBOOT]
        cmd += ["-kernel", image, "-append",
                "console=ttyS0 loglevel=4 root=hostroot rootfstype=9p "
                "rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro "
                f"init={PROBE_INIT} panic=-1 kunit.filter_glob=dplab-skip-kunit",
                "-display", "none", "-monitor", "none", "-no-reboot",
                "-chardev", f"file,id=con,path={console}", "-serial", "chardev:con",
                "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"]
        qlog = os.path.join(tmp, "qemu.log")
        with open(qlog, "w", encoding="utf-8") as qf:
            try:
                proc = subprocess.Popen(cmd, stdout=qf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            except OSError as e:
                return False, f"cannot start {cmd[0]}: {e.strerror}", time.monotonic() - t0
            ok = False
            try:
                while True:
                    if MARKER in _read(console):
                        ok = True
                        break
                    if proc.poll() is not None or time.monotonic() - t0 > timeout:
                        break
                    time.sleep(0.1)
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
        took = time.monotonic() - t0
        if ok:
            return True, f"probe guest reached userspace in {took:.1f} s", took
        lines = [ln.strip() for ln in _read(console).splitlines() if ln.strip()]
        qout = [ln.strip() for ln in _read(qlog).splitlines() if ln.strip()]
        if proc.returncode not in (0, -9) and qout:
            return False, f"qemu -accel {accel} exited {proc.returncode}: {qout[-1]}", took
        if took > timeout:
            why = f"probe guest did not reach userspace within {timeout:g} s"
        else:
            why = f"probe guest ended without reaching userspace (qemu exit {proc.returncode})"
        return False, why + (f"; last console line: {lines[-1][:120]!r}" if lines else "; no console output"), took


def _load_cache(path):
    try:
        with open(path, encoding="utf-8") as f:
            c = json.load(f)
        return c if isinstance(c, dict) else None
    except (OSError, ValueError):
        return None


def choose(value=None, image=None, check_only=False):
    """The accelerator for a guest: {"accelerator", "requested", "reason"}
    (accelerator None with check_only).  AccelError for a bad value, or kvm
    requested where it does not run a guest."""
    req = requested(value)
    if req in ("tcg", "icount"):
        return {"accelerator": None if check_only else req, "requested": req, "reason": "requested"}
    dev = kvm_device()
    st, why = device_state(dev)
    if st is None:
        if req == "kvm":
            raise AccelError(f"ACCEL=kvm but {why}")
        return {"accelerator": None if check_only else "tcg", "requested": req, "reason": f"auto: {why}"}
    timeout = probe_timeout()
    key = cache_key(dev, st)
    path = cache_path()
    if check_only:
        c = _load_cache(path)
        if req == "kvm" and c and c.get("key") == key and not c.get("usable"):
            raise AccelError(f"ACCEL=kvm but {dev} does not run a guest (cached probe: {c.get('why')})")
        return {"accelerator": None, "requested": req, "reason": "not probed (check only)"}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    # One probe at a time: parallel matrix cells wait for the first one's
    # result instead of booting probes side by side.
    with open(path + ".lock", "a+") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        c = _load_cache(path)
        if c and c.get("key") == key and isinstance(c.get("usable"), bool):
            usable, pwhy, cached = c["usable"], c.get("why", "?"), True
        else:
            img = image if image and os.path.isfile(image) else default_image()
            if img is None:
                if req == "kvm":
                    raise AccelError(f"ACCEL=kvm: no lab kernel built to probe {dev} with (make kernel)")
                return {"accelerator": "tcg", "requested": req,
                        "reason": f"auto: no lab kernel built to probe {dev} with"}
            usable, pwhy, took = probe(img, timeout)
            cached = False
            rec = {"key": key, "usable": usable, "why": pwhy, "probe_s": round(took, 2),
                   "image": os.path.relpath(img, TOP) if img.startswith(TOP + "/") else img,
                   "probed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                json.dump(rec, f, indent=1)
                f.write("\n")
            os.replace(path + ".tmp", path)
    src = "cached probe" if cached else "probed"
    if usable:
        return {"accelerator": "kvm", "requested": req,
                "reason": f"{req}: {dev} runs a guest ({src}: {pwhy})"}
    if req == "kvm":
        raise AccelError(f"ACCEL=kvm but {dev} does not run a guest ({src}: {pwhy})")
    return {"accelerator": "tcg", "requested": req,
            "reason": f"auto: {dev} does not run a guest ({src}: {pwhy})"}


def line(choice):
    return f"accel: {choice['accelerator']} ({choice['reason']})"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"accel: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--accel", help="auto, kvm, tcg or icount (default: $ACCEL, else auto)")
    ap.add_argument("--image", help="the bzImage to probe with (default: a built lab kernel)")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--qemu-args", action="store_true", help="print QEMU's arguments, not the name")
    ap.add_argument("--quiet", action="store_true", help="no line on stderr unless an error")
    ap.add_argument("--prog", default="accel", help="prefix of the error line")
    a = ap.parse_args(argv)
    try:
        ch = choose(a.accel, a.image, check_only=a.check_only)
    except AccelError as e:
        print(f"{a.prog}: {e}", file=sys.stderr)
        return 2
    if a.check_only:
        return 0
    if not a.quiet:
        print(line(ch), file=sys.stderr)
    print(" ".join(qemu_args(ch["accelerator"])) if a.qemu_args else ch["accelerator"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
