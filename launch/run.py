#!/usr/bin/env python3
"""One dplab run: topology file -> QEMU -> guest scenario -> OUT -> result.json.

  run.py --topo T --scenario S --mode M [--kernel patched|stock] [--variant lab]
         [--out DIR] [--cmd 'guest command'] [--timeout SEC] [--boot-timeout SEC] [--quiet]
         [--lru classic|mglru] [--disk-write-bps SIZE] [--accel auto|kvm|tcg|icount] [--check-only]
         [--print-build]

Exit 0 when every check passes (xfail counts as expected), 1 when a check
fails or the guest panicked, 2 with one line when the run could not happen
(bad topology or scenario, missing kernel, guest hang: console.log is kept).
With --check-only, exit 0 (silent) or 2 from the parameters alone: nothing
is written, built or booted.  --print-build checks the same and prints
the kernel variant the run boots (lab, or xfs for a topology with an XFS
disk: dplab.contract.build_variant), which make run builds.  --accel
(default $ACCEL, else auto) picks QEMU's accelerator (launch/accel.py):
one line on stderr says which and why.
"""
import argparse
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accel  # noqa: E402
import collect  # noqa: E402
import scenario as scn  # noqa: E402
import topology  # noqa: E402
from dplab.console import last_console_line  # noqa: E402
from dplab.contract import (DEFAULT_VARIANT, KERNELS, LRUS, MODES, TOP, ContractError, build_variant,  # noqa: E402
                            cell_name, kernel_image, kernel_obj_dir, lab_state, variants)
from dplab.files import read  # noqa: E402

DEFAULT_EVENTS = "writeback:* vmscan:mm_vmscan_*"
# One event per dirtied page or inode touch: millions per run, nothing reads
# them, and recording them cost the guest ~85% of its write rate under TCG
# (1 MiB write() p50 30 ms).  A scenario can still ask for one in EVENTS.
PER_PAGE_EVENTS = ("writeback:writeback_dirty_folio writeback:writeback_mark_inode_dirty "
                   "writeback:writeback_dirty_inode_start writeback:writeback_dirty_inode")
QBOOT = "/usr/share/qemu/qboot.rom"


# guest-init.sh's stage line once the guest's userspace runs
USERSPACE_UP = "] userspace up"


def fail2(msg):
    print(f"run: {msg}", file=sys.stderr)
    sys.exit(2)


def make_disk(path, disk):
    """A fresh sparse disk with a new filesystem each run."""
    with open(path, "wb") as f:
        f.truncate(disk.size)
    mkfs = {"ext4": ["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=1,lazy_journal_init=1"],
            "xfs": ["mkfs.xfs", "-q", "-f"]}[disk.fs]
    r = subprocess.run(mkfs + [path], capture_output=True, text=True)
    if r.returncode:
        fail2(f"{mkfs[0]} failed: {r.stderr.strip()}")


def qemu_command(topo, image, out, disk_path, cmdline, accelerator="tcg"):
    disk = topo.disk
    throttle = f",throttling.bps-write={disk.write_bps}" if disk.write_bps else ""
    if disk.read_bps:
        throttle += f",throttling.bps-read={disk.read_bps}"
    # TCG: -accel tcg,thread=multi -cpu max; KVM: -accel kvm -cpu host
    cmd = [accel.qemu_binary()] + accel.qemu_args(accelerator)
    cmd += topology.qemu_args(topo)
    if os.path.exists(QBOOT):
        # qboot instead of SeaBIOS: ~1 s less per boot, NUMA tables intact.
        cmd += ["-bios", QBOOT]
    cmd += ["-kernel", image, "-append", cmdline,
            "-display", "none", "-monitor", "none", "-no-reboot",
            # A guest that resets itself (with -no-reboot QEMU then exits 0)
            # leaves no console line; QEMU's reset log says why (a triple
            # fault, with the registers), and its guest_errors what came before.
            "-d", "cpu_reset,guest_errors", "-D", os.path.join(out, "qemu-debug.log"),
            "-chardev", f"file,id=con,path={os.path.join(out, 'console.log')}",
            "-serial", "chardev:con",
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", f"local,path={out},mount_tag=dplabout,security_model=none,multidevs=remap",
            "-virtfs", f"local,path={TOP},mount_tag=dplablab,security_model=none,readonly=on,multidevs=remap",
            "-drive", f"file={disk_path},format=raw,if=virtio,cache=none,aio=threads{throttle}"]
    return cmd


class Parser(argparse.ArgumentParser):
    """Bad arguments: one line and exit 2, like every other input error."""

    def error(self, message):
        fail2(message)


def safe_out(out):
    """run.py empties OUT before a run: refuse anything but a results
    directory (job.env or result.json inside) or a new/empty one, and never
    the lab tree or a directory holding it."""
    if not os.path.exists(out):
        return
    if not os.path.isdir(out):
        fail2(f"--out {out}: exists and is not a directory")
    real, lab = os.path.realpath(out), os.path.realpath(TOP)
    if lab == real or lab.startswith(real.rstrip("/") + "/"):
        fail2(f"--out {out}: would delete the lab tree")
    if os.listdir(out) and not any(os.path.exists(os.path.join(out, f)) for f in ("job.env", "result.json", "cell.json")):
        fail2(f"--out {out}: not empty and not a results directory; refusing to delete it")


def one_of(words):
    """'a, b or c'"""
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def record_lab(out, repo=TOP):
    """OUT/lab.json: the lab commit the run ran at and whether the tree had
    uncommitted changes; with them, OUT/lab.diff (`git diff --binary HEAD`,
    which `git apply` restores).  Written before the boot, so re-collecting
    the run later names the lab it ran with, not the checkout of that day."""
    state = lab_state(repo)
    record = state or {"lab_commit": None, "commit": None, "dirty": None}
    with open(os.path.join(out, "lab.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    if state and state["dirty"]:
        diff = subprocess.run(["git", "-C", repo, "diff", "--binary", "HEAD"], capture_output=True)
        with open(os.path.join(out, "lab.diff"), "wb") as f:
            f.write(diff.stdout)


def keep_kernel_files(out, kernel, variant):
    """Copy into OUT what the verdict reads of the kernel that boots, which a
    later rebuild replaces in build/: its .config (OUT/kernel.config, read
    by collect.kernel_has), what it was built from (OUT/kernel-source.json,
    result.json's kernel_source) and, for a KCSAN kernel, its System.map (collect
    names the data a KCSAN report raced on from it)."""
    obj = kernel_obj_dir(kernel, variant)
    if os.path.isfile(os.path.join(obj, ".config")):
        shutil.copy(os.path.join(obj, ".config"), os.path.join(out, "kernel.config"))
    # what kernel.sh built: source, series and its patchset hash, fragments
    if os.path.isfile(os.path.join(obj, "kernel-source.json")):
        shutil.copy(os.path.join(obj, "kernel-source.json"), os.path.join(out, "kernel-source.json"))
    if collect.kernel_has(out, kernel, variant, "CONFIG_KCSAN"):
        shutil.copy(os.path.join(obj, "System.map"), os.path.join(out, "System.map"))


def proc_field(path, key):
    """The value of the first "key: value" line of a /proc file such as
    cpuinfo or meminfo (None when it has none)."""
    for line in read(path).splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == key:
            return value.strip()
    return None


def record_host(out, qemu, choice=None):
    """OUT/host.json: the machine that runs the guest, as LKP names it in
    every result: under TCG every time a run measures depends on it.  Taken
    just before the boot, so the load average is the one the guest met.
    usable_cpus is what this process may run on (a container or taskset
    can give QEMU fewer than are online).  choice is accel.choose()'s: the
    accelerator asked for (auto, kvm, tcg) and why the one in qemu won."""
    try:
        version = subprocess.run([qemu[0], "--version"], capture_output=True, text=True,
                                 timeout=30).stdout.splitlines()[:1]
    except (OSError, subprocess.TimeoutExpired):
        version = []
    accelerator = qemu[qemu.index("-accel") + 1].split(",")[0] if "-accel" in qemu else None
    if accelerator == "tcg" and "-icount" in qemu:
        accelerator = "icount"   # guest time counts instructions: never compared with tcg's
    mem_kb = proc_field("/proc/meminfo", "MemTotal")   # "24683748 kB"
    host = {
        "hostname": socket.gethostname(),
        "cpu_model": proc_field("/proc/cpuinfo", "model name"),
        "online_cpus": os.sysconf("SC_NPROCESSORS_ONLN"),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "memory_total_kb": int(mem_kb.split()[0]) if mem_kb else None,
        "qemu_version": version[0].strip() if version else None,
        "accelerator": accelerator,
        "accelerator_requested": (choice or {}).get("requested"),
        "accelerator_reason": (choice or {}).get("reason"),
        "loadavg_start": [float(x) for x in read("/proc/loadavg").split()[:3]],
        # the batch system's job this run was (make matrix ENGINE=slurm), or null
        "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
    }
    with open(os.path.join(out, "host.json"), "w", encoding="utf-8") as f:
        json.dump(host, f, indent=1)
        f.write("\n")


def parse_args():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--topo", default="2node-asym")
    ap.add_argument("--scenario", default="smoke")
    ap.add_argument("--mode", default="global")
    ap.add_argument("--kernel", default="patched")
    ap.add_argument("--variant", default="lab")
    ap.add_argument("--lru", default="classic", help="classic or mglru (multi-gen LRU on in the guest)")
    ap.add_argument("--out")
    ap.add_argument("--cmd", help="run this guest command line as the workload")
    ap.add_argument("--timeout", type=int, help="wall-clock seconds before the guest counts as hung")
    ap.add_argument("--boot-timeout", type=int, default=180,
                    help="seconds for the guest to reach userspace (default 180)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--keep-disk", action="store_true", help="keep test-disk.img in OUT")
    ap.add_argument("--disk", help="boot on this existing disk image (not formatted, kept): "
                    "a second boot after a crash reads what the first one wrote")
    ap.add_argument("--append", default="", help="more kernel command-line arguments (after the scenario's CMDLINE)")
    ap.add_argument("--slow-motion", type=int, default=1, metavar="N",
                    help="for kernels that dirty N times slower (debug builds): the disk writes N times "
                         "slower and the scenario gets SLOW_MOTION=N to stretch its phases (default 1)")
    ap.add_argument("--disk-write-bps", metavar="SIZE",
                    help="the test disk's QEMU write throttle (e.g. 4M, bytes/s), instead of the "
                         "scenario's DISK_WRITE_BPS or the topology's write_bps")
    ap.add_argument("--accel", default=os.environ.get("ACCEL") or "auto",
                    help="QEMU's accelerator: auto (KVM when a probe guest runs under it, else TCG), "
                         "kvm, tcg, or icount (TCG, the guest's clock counts instructions: launch/accel.py) "
                         "(default: $ACCEL, else auto)")
    ap.add_argument("--check-only", action="store_true",
                    help="check every parameter, then exit: 0 and silent when the run could start. "
                         "make run does this before it builds a kernel; whether the kernel exists "
                         "is not checked")
    ap.add_argument("--print-build", action="store_true",
                    help="check every parameter, then print the kernel variant this run boots "
                         "(VARIANT, or xfs for a lab run on an XFS disk) and exit")
    return ap.parse_args()


def check_parameters(a):
    """Every parameter, before anything is built, written or booted: the
    first bad one ends the run with one line and exit 2.  Returns the
    topology file, the topology (disk throttle applied), the scenario, the
    cell name and OUT."""
    if a.mode not in MODES:
        fail2(f"MODE must be one of {', '.join(MODES)}, not '{a.mode}'")
    if a.kernel not in KERNELS:
        fail2(f"KERNEL must be {one_of(KERNELS)}, not '{a.kernel}'")
    try:
        known = variants()
    except ContractError as e:
        fail2(str(e))
    if a.variant not in known:
        fail2(f"VARIANT must be {one_of(known)}, not '{a.variant}'")
    if a.lru not in LRUS:
        fail2(f"LRU must be {one_of(LRUS)}, not '{a.lru}'")
    try:
        # the value; for kvm also the device (and a cached failed probe)
        accel.choose(a.accel, check_only=True)
    except accel.AccelError as e:
        fail2(str(e))
    if a.timeout is not None and not 10 <= a.timeout <= 7200:
        fail2(f"--timeout {a.timeout}: want 10..7200 seconds")
    if not 10 <= a.boot_timeout <= 7200:
        fail2(f"--boot-timeout {a.boot_timeout}: want 10..7200 seconds")
    if not 1 <= a.slow_motion <= 50:
        fail2(f"--slow-motion {a.slow_motion}: want 1..50")
    disk_bps = None
    if a.disk_write_bps is not None:
        try:
            disk_bps = topology.parse_size(a.disk_write_bps)
        except ValueError:
            disk_bps = None
        if disk_bps is None or not (1 << 20) <= disk_bps <= (64 << 30):
            fail2(f"--disk-write-bps {a.disk_write_bps}: want a size from 1M to 64G (bytes/s), e.g. 4M")
    tpath = topology.resolve(a.topo, TOP)
    if not os.path.isfile(tpath):
        fail2(f"no topology '{a.topo}' (not a file, nor a name under topologies/)")
    try:
        topo = topology.load(tpath)
    except topology.TopologyError as e:
        fail2(str(e))
    try:
        sc = scn.load_cmd(a.cmd) if a.cmd else scn.load(scn.resolve(a.scenario, TOP))
    except scn.ScenarioError as e:
        fail2(str(e))
    if "DISK_WRITE_BPS" in sc.vars:
        topo.disk.write_bps = topology.parse_size(sc.vars["DISK_WRITE_BPS"])
    if disk_bps is not None:
        topo.disk.write_bps = disk_bps
    # Slow motion keeps the ratio of dirtying to cleaning that a scenario's
    # claim depends on when the kernel itself is slow: under KCSAN a bound
    # dirtier managed 3-4 MiB/s against the disk's 30, the flusher cleaned
    # everything first and node 0's reclaim met no dirty page.
    if a.slow_motion > 1:
        if not topo.disk.write_bps:
            fail2(f"--slow-motion {a.slow_motion}: the disk has no write_bps to slow down")
        bps = topo.disk.write_bps // a.slow_motion
        if bps < 2 << 20:
            fail2(f"--slow-motion {a.slow_motion}: write_bps {topo.disk.write_bps >> 10}K "
                  f"/ {a.slow_motion} is under 2M")
        topo.disk.write_bps = bps
    if a.disk and not os.path.isfile(a.disk):
        fail2(f"--disk {a.disk}: no such file")
    ncpus = topo.total_cpus()
    if accel.requested(a.accel) == "icount" and ncpus > 1:
        fail2(f"ACCEL=icount runs one vCPU only (QEMU's icount never brings up a second): "
              f"topology {topo.name} has {ncpus} (for a cost: 2node-1cpu, 64node-1cpu)")
    name = cell_name(topo.name, sc.name, a.mode, a.kernel, a.variant, a.lru)
    out = os.path.abspath(a.out or os.path.join(TOP, "results", name))
    safe_out(out)
    return tpath, topo, sc, name, out


def record_inputs(out, a, sc, tpath, build):
    """A fresh OUT holding what the run's verdict depends on: the scenario
    and its lib files, the topology, the kernel's files and the lab commit."""
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    # The run's record of its scenario, and what the guest sources as
    # written (its #CHECK# lines are comments there).
    with open(os.path.join(out, "scenario.sh"), "w", encoding="utf-8") as f:
        f.write(sc.text)
    # and of the lib files it sources: their #CHECK# lines are its checks too
    for lib in sc.libs:
        os.makedirs(os.path.join(out, "scenario-lib"), exist_ok=True)
        shutil.copy(scn.lib_path(lib), os.path.join(out, "scenario-lib", lib + ".sh"))
    shutil.copy(tpath, os.path.join(out, "topology"))
    keep_kernel_files(out, a.kernel, build)
    record_lab(out)


def write_job_env(out, a, topo, sc):
    """OUT/job.env: what guest-init.sh and the scenario read."""
    env = {
        "LAB": TOP, "MODE": a.mode, "SCENARIO": sc.name, "SCENARIO_FILE": "/mnt/out/scenario.sh",
        "TEST_FS": topo.disk.fs, "DEFAULT_EVENTS": DEFAULT_EVENTS,
        "PER_PAGE_EVENTS": PER_PAGE_EVENTS,
        "NODES": str(len(topo.nodes)), "TOPO": topo.name,
        "TRACE_BUFFER_KB": str(sc.vars.get("TRACE_BUFFER_KB", "4096")), "LRU": a.lru,
        "SLOW_MOTION": str(a.slow_motion),
        # the write throttle the disk really has (scenario, --disk-write-bps,
        # --slow-motion applied): a scenario may size its writes by it
        "DISK_THROTTLE_BPS": str(topo.disk.write_bps),
    }
    with open(os.path.join(out, "job.env"), "w", encoding="utf-8") as f:
        for k, v in env.items():
            f.write(f"{k}={shlex.quote(v)}\n")


def kernel_cmdline(a, topo, sc):
    return " ".join([
        "console=ttyS0", "loglevel=5", "root=hostroot", "rootfstype=9p",
        # The host root is read-only for the guest's whole life, so caching
        # it is safe, and it saves a 9p round trip per lookup and exec.
        "rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose", "ro",
        f"init={os.path.join(TOP, 'launch', 'guest-init.sh')}",
        "panic=-1", "oops=panic", "softlockup_panic=1",
        # TCG time-shares vCPUs on few host cores: relax stall detectors.
        "rcupdate.rcu_cpu_stall_timeout=120", "watchdog_thresh=60",
        f"dirty_pressure={a.mode}", "kunit.filter_glob=dplab-skip-kunit",
        f"nr_cpus={topo.total_cpus()}", "tsc=reliable", "no_timer_check",
        # A topology's dimm= memory is onlined by the kernel itself (the
        # guest runs no udev), so the guest's view matches the file; a
        # scenario's CMDLINE can say online_movable instead (kswapd-stop).
        # A boot argument, not MEMORY_HOTPLUG_DEFAULT_ONLINE, so the stock
        # and patched builds keep one .config for every topology.
        "memhp_default_state=online" if any(n.dimm for n in topo.nodes.values()) else "",
        # Last, so a scenario's or the caller's arguments win (a bad
        # dirty_pressure= value, movable_node, ...).
        sc.vars.get("CMDLINE", ""), a.append,
    ]).strip()


def boot(qemu, out, timeout, boot_timeout):
    """Run QEMU until it exits, or kill it: after timeout, or after
    boot_timeout without guest-init's "userspace up".  (returncode, wall
    seconds, hung, booted)."""
    t0 = time.monotonic()
    with open(os.path.join(out, "qemu.log"), "w", encoding="utf-8") as qf:
        proc = subprocess.Popen(qemu, stdout=qf, stderr=subprocess.STDOUT)
        hung = booted = False
        # A kernel that stops in early boot (1 of 5 debug-kernel boots sat
        # idle after "tsc: Unable to calibrate against PIT") is killed after
        # --boot-timeout instead of the whole scenario timeout.
        while proc.poll() is None:
            elapsed = time.monotonic() - t0
            if not booted:
                booted = USERSPACE_UP in read(os.path.join(out, "console.log"))
            if elapsed > timeout or (not booted and elapsed > boot_timeout):
                proc.kill()
                proc.wait()
                hung = True
                break
            time.sleep(0.5)
    return proc.returncode, time.monotonic() - t0, hung, booted


def main():
    a = parse_args()
    tpath, topo, sc, name, out = check_parameters(a)
    build = build_variant(a.variant, topo.disk.fs)
    if a.print_build:
        print(build)
        return 0
    if a.check_only:
        return 0
    image = kernel_image(a.kernel, build)
    if not os.path.isfile(image):
        vb = "" if build == DEFAULT_VARIANT else f" VARIANT={build}"
        fail2(f"no kernel at {os.path.relpath(image, TOP)}: run 'make kernel KERNEL={a.kernel}{vb}'")
    try:
        choice = accel.choose(a.accel, image)
    except accel.AccelError as e:
        fail2(str(e))
    if not a.quiet:
        print(accel.line(choice), file=sys.stderr, flush=True)

    record_inputs(out, a, sc, tpath, build)
    if a.disk:
        disk_path = os.path.abspath(a.disk)
    else:
        disk_path = os.path.join(out, "test-disk.img")
        make_disk(disk_path, topo.disk)
    write_job_env(out, a, topo, sc)
    qemu = qemu_command(topo, image, out, disk_path, kernel_cmdline(a, topo, sc), choice["accelerator"])
    with open(os.path.join(out, "qemu.cmd"), "w", encoding="utf-8") as f:
        f.write(" ".join(shlex.quote(x) for x in qemu) + "\n")

    timeout = a.timeout or int(sc.vars.get("TIMEOUT", "300"))
    if not a.quiet:
        print(f"run: {name}: booting {len(topo.nodes)}-node guest ({topo.total_cpus()} vCPUs, "
              f"{topo.memory >> 20} MiB), timeout {timeout}s", flush=True)
    boot_timeout = min(a.boot_timeout, timeout)
    record_host(out, qemu, choice)
    rc, wall, hung, booted = boot(qemu, out, timeout, boot_timeout)
    if not a.keep_disk and not a.disk:
        os.unlink(disk_path)

    if hung:
        last = last_console_line(out)
        what = f"guest hung: killed after {timeout}s" if booted else \
            f"guest did not boot: no userspace after {boot_timeout}s, killed"
        fail2(f"{what}; last console line: {last!r} (console: {os.path.relpath(out)}/console.log)")
    if rc != 0 and not os.path.exists(os.path.join(out, "guest-status")):
        qout = read(os.path.join(out, "qemu.log"))
        fail2(f"qemu exited {rc}: {(qout or '').strip().splitlines()[-1:] or ['no output']}")

    if not os.path.exists(os.path.join(out, "guest-status")) and \
            "Triple fault" in read(os.path.join(out, "qemu-debug.log")):
        print(f"run: {name}: the guest reset itself: QEMU logged a triple fault "
              f"({os.path.relpath(out)}/qemu-debug.log)", file=sys.stderr, flush=True)
    res = collect.collect(out, topo, sc, a.mode, a.kernel, a.variant, wall)
    if not a.quiet:
        collect.print_summary(res, out, TOP)
    return 0 if res["pass"] else 1

if __name__ == "__main__":
    sys.exit(main())
