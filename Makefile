# dplab: the front door.  `make help` lists every target.
TOPO     ?= 2node-asym
SCENARIO ?= smoke
MODE     ?= global
KERNEL   ?= patched
VARIANT  ?= lab
OUT      ?=
CMD      ?=
# QEMU's accelerator for every guest (run, matrix, bench, kunit): auto, kvm, tcg.
# Exported: run.py's --accel and kunit.sh read it, and so do matrix cells.
ACCEL    ?= auto
export ACCEL
# KSRC=PATH: build and run the user's kernel source (a tree or a tarball) instead of
# Debian's linux-source-6.1, under build/ksrc/<name>-<hash>/ (launch/lib.sh kernel_root);
# SERIES=FILE: the series file KERNEL=patched applies (default: the one for the tree's version).
# Exported: kernel.sh, kunit.sh, check-series.sh, run.py and matrix cells read them.
KSRC     ?=
SERIES   ?=
# KVER=6.1|6.12: the short form of KSRC for Debian's kernel sources
# (dplab.contract.kver_ksrc): 6.1 is the default (linux-source-6.1, no KSRC),
# 6.12 is KSRC=/usr/src/linux-source-6.12.tar.xz (linux-source-6.12).
# KVERS=6.1,6.12 (matrix, matrix-smoke, bench): every cell on each version.
KVERS_KNOWN := 6.1 6.12
kver_ksrc = $(if $(filter-out 6.1,$(1)),/usr/src/linux-source-$(1).tar.xz)
KVER     ?=
ifneq ($(KVER),)
ifneq ($(filter-out $(KVERS_KNOWN),$(KVER))$(word 2,$(KVER)),)
KVER_ERROR := KVER must be 6.1 or 6.12, not '$(KVER)'
else ifneq ($(KSRC),)
KVER_ERROR := KVER=$(KVER) and KSRC=$(KSRC) both name a kernel source: give one
else
override KSRC := $(call kver_ksrc,$(KVER))
endif
endif
export KSRC SERIES

PYTHON   := /usr/bin/python3
BIN      := build/bin

# What the lab needs from Debian.  `make deps` installs whatever is missing.
DEB_PACKAGES := linux-source-6.1 linux-source-6.12 qemu-system-x86 qemu-utils libnuma-dev numactl trace-cmd \
	kernelshark libkshark-dev libtracecmd-dev libtraceevent-dev libtracefs-dev gnuplot-nox \
	ccache flex bison bc libelf-dev libssl-dev dwarves e2fsprogs xfsprogs fio stress-ng fsmark \
	xz-utils cpio kmod jq python3 xvfb xauth x11-utils imagemagick libjson-c-dev valgrind strace gcc make pkg-config bc python3-ply python3-git \
	slurm-wlm munge
# (linux-source-6.12: KVER=6.12 and KVERS=6.1,6.12; slurm-wlm and munge: ENGINE=slurm, and the
# one-node cluster its tests start: launch/slurm-local.sh)
DOCS_PACKAGES := python3-sphinx python3-sphinx-rtd-theme

.PHONY: help deps deps-docs kver-check kernel kunit run test test-host test-lab check-series build-cost tools workloads analysis \
	view matrix matrix-smoke bench docs clean distclean

help:
	@echo "dplab: dynamic dirty pressure for Linux 6.1, and the NUMA lab that tests it"
	@echo
	@echo "  make run [TOPO=$(TOPO)] [SCENARIO=$(SCENARIO)] [MODE=off|global|node] [KERNEL=patched|stock]"
	@echo "           [OUT=dir] [CMD='guest command']   boot, run, trace, collect: results/<topo>-<scenario>-<mode>-<kernel>/"
	@echo "  make test                 every test (host unit tests, KUnit, lab runs); ends 'N passed, N failed'"
	@echo "  make test-host            host tests only (no kernel needed)"
	@echo "  make kernel [KERNEL=patched|stock] [VARIANT=lab|xfs|jumplabel|debug|kcsan]   build bzImage (incremental, ccache)"
	@echo "  make kunit                boot the KUnit suites dirty_pressure* under QEMU, their results as the tree's kunit.py parse reads them"
	@echo "  make check-series         checkpatch --strict on every patch + compile tests of config variants"
	@echo "  make build-cost [KERNEL=] [VARIANT=]   a cold build timed per object: which directories and"
	@echo "                            config symbols cost build time (build/build-cost/*/summary.md; 12 min)"
	@echo "  make view OUT=dir         open a run's trace in KernelShark with its session and plugin"
	@echo "  make matrix [TOPOS=a,b] [SCENARIOS=] [MODES=] [LRU=classic,mglru] [KERNELS=] [JOBS=n] [RERUN=1]"
	@echo "                            scenarios x topologies x modes, resumable; report in results/<matrix>/report.{md,html}"
	@echo "  make matrix-smoke         every topology and scenario once (make test runs it: tests/lab/30-matrix-smoke.t)"
	@echo "  make bench [SCENARIOS=] [TOPOS=] [REPEATS=3]   repeated A/B runs (off, global, node, stock): medians and spread"
	@echo "  matrix, matrix-smoke, bench also take CELLS=a,b (only those cells), KVERS=6.1,6.12 (every"
	@echo "           cell on each kernel version; a 6.12 cell's name says -k6.12; default 6.1) and"
	@echo "           ENGINE=slurm [PARTITION=] [ACCOUNT=] [TIME_LIMIT=min]: the cells as one Slurm job array, JOBS at once"
	@echo "  launch/matrix.py --list --format json|gitlab [selection]   the cells as a CI matrix (docs/ci/)"
	@echo "  KSRC=path [SERIES=file]   for kernel, run, kunit, check-series, matrix, matrix-smoke, bench: your own"
	@echo "                            kernel tree or tarball instead of Debian's 6.1 (README: Your own kernel)"
	@echo "  KVER=6.1|6.12             for the same targets: Debian's source of that version; 6.1 is the"
	@echo "                            default, 6.12 is KSRC=/usr/src/linux-source-6.12.tar.xz"
	@echo "  ACCEL=auto|kvm|tcg        for run, kunit, matrix, matrix-smoke, bench (default auto): auto boots"
	@echo "                            a probe guest under KVM (cached per host boot in build/accel-probe-HOST.json)"
	@echo "                            and falls back to TCG; kvm where it cannot run a guest exits 2"
	@echo "  make deps                 install missing Debian packages ($(words $(DEB_PACKAGES)) packages)"
	@echo "  make tools                build the workloads and the analyser into $(BIN)/"
	@echo "  make docs                 regenerate docs/scenarios.md; check docs/evidence.md and the cover letter"
	@echo
	@echo "Topologies: $(notdir $(wildcard topologies/*))"
	@echo "Scenarios:  $(basename $(notdir $(wildcard workloads/scenarios/*.sh)))"

# install_missing: apt-get install those of the packages that are not installed
define install_missing
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "[deps] installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
			{ echo "[deps] apt-get install failed for:" $$missing; exit 1; }; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

# The first prerequisite of every kernel target: a bad KVER (or KVER with KSRC)
# stops it in one line, exit 2, before packages, tools or kernels.
kver-check:
	@$(if $(KVER_ERROR),echo "$(firstword $(MAKECMDGOALS) make): $(KVER_ERROR)" >&2; exit 2,:)

# the kernel's sphinx build of the series' document (make check-series only)
deps-docs:
	$(call install_missing,$(DOCS_PACKAGES))

kernel: kver-check deps
	@launch/kernel.sh $(KERNEL) $(VARIANT)

tools: workloads analysis

workloads:
	@if [ -f workloads/Makefile ]; then $(MAKE) -s -C workloads; fi

analysis:
	@if [ -f analysis/Makefile ]; then $(MAKE) -s -C analysis; fi

RUN_ARGS = --topo "$(TOPO)" --scenario "$(SCENARIO)" --mode "$(MODE)" --kernel "$(KERNEL)" \
	--variant "$(VARIANT)" $(if $(LRU),--lru "$(LRU)") $(if $(OUT),--out "$(OUT)") $(if $(CMD),--cmd "$(CMD)")
# Parameters checked first (one line, exit 2, in seconds): a misspelt TOPO
# must not wait for a 12-minute kernel build; then the kernel and the tools.
run: kver-check deps
	@v=$$($(PYTHON) launch/run.py $(RUN_ARGS) --print-build) && launch/kernel.sh $(KERNEL) $$v
	@$(MAKE) -s --no-print-directory tools
	@$(PYTHON) launch/run.py $(RUN_ARGS)

kunit: kver-check deps
	@$(PYTHON) launch/accel.py --check-only --prog kunit
	@launch/kernel.sh patched $(VARIANT)
	@launch/kunit.sh $(VARIANT)

check-series: kver-check deps deps-docs
	@launch/check-series.sh

build-cost: deps
	@launch/build-cost.sh $(KERNEL) $(VARIANT)

test: deps
	@tests/run host lab

test-host: deps
	@tests/run host

view:
	@test -n "$(OUT)" || { echo "make view: give OUT=<results dir>"; exit 2; }
	@launch/view.sh "$(OUT)"

docs:
	@$(PYTHON) launch/scenarios-doc.py
	@$(PYTHON) launch/evidence.py check

clean:
	rm -rf build/bin build/bin-asan
	@if [ -f workloads/Makefile ]; then $(MAKE) -s -C workloads clean; fi
	@if [ -f analysis/Makefile ]; then $(MAKE) -s -C analysis clean; fi

distclean:
	rm -rf build results

# The topology matrix (issue 6): launch/matrix.py, report in results/<matrix>/report.{md,html}.
# Lists take commas: TOPOS=uma,2node-asym SCENARIOS= MODES=off,global LRU=classic,mglru
# KERNELS=patched,stock KVERS=6.1,6.12 JOBS=n MATRIX=name RERUN=1 REPEATS=n CELL_TIMEOUT=s.
comma := ,
MATRIX_ARGS = $(if $(TOPOS),--topos "$(TOPOS)") $(if $(SCENARIOS),--scenarios "$(SCENARIOS)") \
	$(if $(MODES),--modes "$(MODES)") $(if $(LRU),--lru "$(LRU)") $(if $(KERNELS),--kernels "$(KERNELS)") \
	$(if $(KVERS),--kvers "$(KVERS)") \
	$(if $(JOBS),--jobs "$(JOBS)") $(if $(MATRIX),--matrix "$(MATRIX)") $(if $(filter 1 yes,$(RERUN)),--rerun) \
	$(if $(REPEATS),--repeats "$(REPEATS)") $(if $(CELL_TIMEOUT),--cell-timeout "$(CELL_TIMEOUT)") \
	$(if $(CELLS),--cells "$(CELLS)") $(if $(ENGINE),--engine "$(ENGINE)") \
	$(if $(PARTITION),--partition "$(PARTITION)") $(if $(ACCOUNT),--account "$(ACCOUNT)") \
	$(if $(TIME_LIMIT),--time-limit "$(TIME_LIMIT)") --variant "$(VARIANT)"
# Selection checked first (one line, exit 2) so bad input never waits for a kernel build;
# then every kernel build the cells boot is built or found up to date: matrix.py --builds
# names them, one "KSRC KERNEL VARIANT" line each (the variant is xfs for a lab cell on an
# XFS disk; KSRC "-" leaves the environment's, "=PATH" is a KVERS version's source,
# "=" alone Debian's 6.1).  $(1) is the matrix's kind (--smoke, --bench or nothing).
matrix_kernels = @b=$$($(PYTHON) launch/matrix.py $(1) $(MATRIX_ARGS) --builds) || exit 2; \
	echo "$$b" | while read -r s k v; do [ "$$s" = - ] || export KSRC="$${s\#=}"; \
	launch/kernel.sh $$k $$v || exit 1; done

matrix: kver-check deps tools
	@$(PYTHON) launch/accel.py --check-only --prog matrix
	@$(PYTHON) launch/matrix.py $(MATRIX_ARGS) --list >/dev/null
	$(call matrix_kernels,)
	@$(PYTHON) launch/matrix.py $(MATRIX_ARGS)

matrix-smoke: kver-check deps tools
	@$(PYTHON) launch/accel.py --check-only --prog matrix-smoke
	@$(PYTHON) launch/matrix.py --smoke $(MATRIX_ARGS) --list >/dev/null
	$(call matrix_kernels,--smoke)
	@$(PYTHON) launch/matrix.py --smoke $(MATRIX_ARGS)

bench: kver-check deps tools
	@$(PYTHON) launch/accel.py --check-only --prog bench
	@$(PYTHON) launch/matrix.py --bench $(MATRIX_ARGS) --list >/dev/null
	$(call matrix_kernels,--bench)
	@$(PYTHON) launch/matrix.py --bench $(MATRIX_ARGS)
