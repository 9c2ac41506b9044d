# kpkeys workbench.  The two commands that matter are 'make demo' and
# 'make test'; README.md says what they do.  Everything lands in build/.

PYTHON ?= python3
# Limit 'make demo', 'make test' or 'make build' to some architectures:
# make test ARCH=arm64
ARCH ?=
KPK = $(PYTHON) -m kpk

.PHONY: demo test check bench tree export build bisect qemu qemu-export deps \
	clean python

demo: python
	$(KPK) demo $(ARCH)

# make test POE_QEMU=optional: go on (skipping the boots that need it)
# when the QEMU built from qemu/ cannot be had; by default that fails.
POE_QEMU ?=
POE_QEMU_ARG = $(if $(POE_QEMU),--poe-qemu=$(POE_QEMU))
test: python
	$(KPK) test $(POE_QEMU_ARG) $(ARCH)

# One boot, or one arch's boots, after rebuilding what changed:
# make check BOOT=x86_64-pti, make check ARCH=arm64; make check lists them.
BOOT ?=
check: python
	$(KPK) check $(POE_QEMU_ARG) $(if $(BOOT),--boot $(BOOT)) $(ARCH)

# Costs with the protection off and on, side by side (slow: see README):
# make bench [ARCH=...] [NAME=current] [SERIES=<git revision of patches/>]
#            [RUNS=7] [ROUNDS=2] [OPS=<benchmark,...>]
NAME ?=
SERIES ?=
RUNS ?= 7
ROUNDS ?= 2
OPS ?=
bench: python
	$(KPK) bench $(ARCH) $(if $(NAME),--name $(NAME)) $(if $(SERIES),--series $(SERIES)) \
		--runs $(RUNS) --rounds $(ROUNDS) $(if $(OPS),--ops $(OPS))

# Developer commands
tree: python
	$(KPK) tree

export: python
	$(KPK) export

build: python
	$(KPK) build $(ARCH)

# make bisect FROM=19: start at patch 19
FROM ?= 1
bisect: python
	$(KPK) bisect --from $(FROM)

qemu: python
	$(KPK) qemu

qemu-export: python
	$(KPK) qemu-export

deps: python
	$(KPK) deps

clean:
	rm -rf build/out build/results build/logs build/buildtests build/bisect \
		build/base build/selftests build/initramfs-*

# The driver is Python 3 (standard library only); a minimal Debian may lack it.
python:
	@command -v $(PYTHON) >/dev/null || { \
		echo "kpk: installing python3 with apt-get"; \
		apt-get update -qq && apt-get install -y -qq python3; }
