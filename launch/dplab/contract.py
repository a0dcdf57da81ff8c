"""The names a run is selected by, and where its kernel is.

The Makefile's help and launch/kernel.sh keep their own spelling of these
lists (make and shell cannot import Python); tests/host/contract.t fails
when they disagree with this file.
"""
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the kernel's dirty_pressure= boot parameter, in the order tables show them
MODES = ("off", "global", "node")
# the series applied, or the same tree without it
KERNELS = ("patched", "stock")
# classic LRU, or the multi-gen LRU switched on in the guest
LRUS = ("classic", "mglru")
# the build everyone runs; other variants (debug, kcsan) are kernel.sh's
DEFAULT_VARIANT = "lab"
# The kernel versions a matrix runs (KVERS=), each from Debian's
# linux-source-<version>: 6.1, the series' base, is the lab's default
# source (no KSRC); another is KSRC=<its tarball> (the Makefile's KVER=).
KVERS = ("6.1", "6.12")
DEFAULT_KVER = "6.1"
# The sides of a comparison, in the order report tables show them, as
# (kernel, mode, label): each mode of the series, then the stock kernel,
# which has no dirty_pressure= and so runs once, as mode off.
COLUMNS = tuple(("patched", m, m) for m in MODES) + (("stock", "off", "stock"),)


class ContractError(Exception):
    pass


def variants():
    """The kernel variants launch/kernel.sh builds.  Its own list is asked,
    so a variant it would refuse is refused before anything is built."""
    try:
        r = subprocess.run([os.path.join(TOP, "launch", "kernel.sh"), "--variants"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ContractError(f"launch/kernel.sh --variants: {e}")
    if r.returncode or not r.stdout.split():
        raise ContractError("launch/kernel.sh --variants failed: "
                            f"{(r.stderr.strip().splitlines() or ['no output'])[-1]}")
    return r.stdout.split()


def kver_ksrc(kver):
    """The KSRC that builds a kernel version: None for the default (Debian's
    6.1, the lab's own source), else the tarball of Debian's
    linux-source-<version> (the Makefile's KVER=, make deps installs it)."""
    return None if kver == DEFAULT_KVER else f"/usr/src/linux-source-{kver}.tar.xz"


def kver_of(version):
    """A kernel's major.minor from its version (6.12.118 -> 6.12); None
    when it does not start with two numbers."""
    m = re.match(r"(\d+)\.(\d+)(?!\d)", str(version or ""))
    return f"{m.group(1)}.{m.group(2)}" if m else None


# ---- the cell name ----------------------------------------------------------
# <topo>-<scenario>-<mode>-<kernel>[-k<kver>][-<variant>][-mglru][-rN]: run.py's
# default OUT under results/, matrix.py's cell directory, and the name a CI
# job is given (CELLS=).  The default kernel version (6.1), the lab variant
# and the classic LRU are left out, so the common cell keeps its short name.

def cell_name(topology, scenario, mode, kernel, variant=DEFAULT_VARIANT, lru="classic", repeat=None,
              kver=DEFAULT_KVER):
    name = f"{topology}-{scenario}-{mode}-{kernel}"
    if kver not in (None, DEFAULT_KVER):
        name += f"-k{kver}"
    if variant != DEFAULT_VARIANT:
        name += f"-{variant}"
    if lru == "mglru":
        name += "-mglru"
    if repeat is not None:
        name += f"-r{repeat}"
    return name


_CELL = re.compile(r"(?P<head>.+)-(?P<mode>%s)-(?P<kernel>%s)(?:-k(?P<kver>%s))?(?:-(?P<variant>[a-z0-9]+?))??"
                   r"(?P<mglru>-mglru)?(?:-r(?P<repeat>\d+))?" % (
                       "|".join(MODES), "|".join(KERNELS),
                       "|".join(re.escape(v) for v in KVERS if v != DEFAULT_KVER)))


def parse_cell_name(name, topologies):
    """cell_name()'s fields back from a name: topologies is the list of
    topology names, which settles where the topology ends (both it and the
    scenario may contain '-').  None when the name is not a cell's."""
    m = _CELL.fullmatch(name)
    if not m:
        return None
    head = m.group("head")
    topo = max((t for t in topologies if head.startswith(t + "-")), key=len, default=None)
    if topo is None:
        return None
    return {"topology": topo, "scenario": head[len(topo) + 1:], "mode": m.group("mode"),
            "kernel": m.group("kernel"), "variant": m.group("variant") or DEFAULT_VARIANT,
            "lru": "mglru" if m.group("mglru") else "classic",
            "repeat": int(m.group("repeat")) if m.group("repeat") else None,
            "kver": m.group("kver") or DEFAULT_KVER}


# ---- where a kernel is built ------------------------------------------------
# The shell's copy is launch/lib.sh kernel_obj_dir (kernel.sh, kunit.sh);
# tests/host/kernel-lib.t holds the two equal.

def kernel_root(ksrc=None):
    """Where the kernels of the current source are built: build/ for
    Debian's 6.1, build/ksrc/<name>-<hash> for KSRC=PATH (the user's tree
    or tarball).  The KSRC rule is launch/lib.sh's kernel_root, asked here
    rather than written twice.  ksrc: that source instead of the
    environment's KSRC ("" for Debian's 6.1)."""
    ksrc = os.environ.get("KSRC", "") if ksrc is None else ksrc
    if not ksrc:
        return os.path.join(TOP, "build")
    r = subprocess.run(["bash", "-c", '. "$1/launch/lib.sh" && kernel_root "$1"', "kernel_root", TOP],
                       capture_output=True, text=True, env=dict(os.environ, KSRC=ksrc))
    if r.returncode != 0 or not r.stdout.strip():
        raise ContractError((r.stderr.strip().splitlines() or ["cannot place KSRC's build"])[-1])
    return r.stdout.strip()


def kernel_obj_dir(kernel, variant, ksrc=None):
    """<root>/KERNEL/obj (VARIANT lab) or <root>/KERNEL/obj-VARIANT, <root>
    being kernel_root(ksrc)'s."""
    obj = "obj" + ("" if variant in (None, DEFAULT_VARIANT) else f"-{variant}")
    return os.path.join(kernel_root(ksrc), kernel or "patched", obj)


def build_variant(variant, disk_fs):
    """The kernel build a run boots for VARIANT on a disk of filesystem
    DISK_FS: the lab build has no XFS (a fifth of a cold build's compile
    time, for two topologies), so an XFS disk boots the xfs variant, the lab
    kernel with XFS.  The cell keeps VARIANT in its name and result.json;
    its kernel_source lists the fragments the build had."""
    if variant in (None, DEFAULT_VARIANT) and disk_fs == "xfs":
        return "xfs"
    return variant or DEFAULT_VARIANT


def kernel_image(kernel, variant):
    return os.path.join(kernel_obj_dir(kernel, variant), "arch/x86/boot/bzImage")


# ---- the lab checkout a run ran at ------------------------------------------

def lab_state(repo=TOP):
    """The lab checkout's commit: {"lab_commit": short hash, with
    '+uncommitted changes' when tracked files differ from it, "commit": the
    full hash, "dirty": whether they differ}.  None outside a git checkout."""
    try:
        full = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        short = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
    except OSError:
        return None
    if not full:
        return None
    return {"lab_commit": short + ("+uncommitted changes" if dirty else ""), "commit": full, "dirty": dirty}


def lab_commit():
    """The checkout's lab_commit now (see lab_state); None outside git.  A
    run's own is recorded by run.py in OUT/lab.json and read from there."""
    state = lab_state()
    return state["lab_commit"] if state else None
