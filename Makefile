# Two set-up commands (see README): `make run` and `make test`. Both create .venv, build the
# compiled core and install the package with what the job needs.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
SOURCES := $(shell find src python -type f -not -path '*/__pycache__/*') CMakeLists.txt pyproject.toml

.PHONY: run test bench dev clean browser valgrind guard

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# The installed build, rebuilt when a source changes. A lock keeps parallel builds apart.
# `run` needs only the core; `test` adds the test tools and every optional integration.
$(VENV)/.installed-core: $(BIN)/python $(SOURCES)
	flock $(VENV)/.build.lock $(BIN)/pip install -q .
	touch $@

$(VENV)/.installed: $(BIN)/python $(SOURCES)
	flock $(VENV)/.build.lock $(BIN)/pip install -q ".[test,all]"
	touch $@

run: $(VENV)/.installed-core
	$(BIN)/guandan-fast simulate

# Parallel workers (pytest-xdist); the Ray tests form one group, so one worker starts Ray once.
# Then the speed guard: instruction counts of fixed workloads against the committed baseline
# (bench/instruction_guard.py, docs/design.md "The instruction guard").
test: $(VENV)/.installed browser valgrind
	$(BIN)/python -m pytest -q -n auto --dist loadgroup
	$(BIN)/python bench/instruction_guard.py

guard: $(VENV)/.installed valgrind
	$(BIN)/python bench/instruction_guard.py

# The browser tests drive the system's Chromium (never a downloaded one): installed here when
# we are root with apt-get, otherwise the one command that does it is named.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; \
	else echo "make test: the browser tests need Chromium: sudo apt-get install -y chromium chromium-driver" >&2; \
		exit 1; fi

# The instruction guard counts with callgrind: valgrind installed the same way.
valgrind:
	@if command -v valgrind >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind; \
	else echo "make test: the instruction guard needs valgrind: sudo apt-get install -y valgrind" >&2; \
		exit 1; fi

# The quick set: one short run per area and one summary table (bench/quick.py); the full
# benchmarks, one per area, are run one by one (bench/RESULTS.md gives each command).
bench: $(VENV)/.installed
	$(BIN)/python bench/quick.py

# Developer build: editable install (Python files are used from python/, compiled modules are
# rebuilt by running `make dev` again).
dev: $(BIN)/python
	$(BIN)/pip install -q scikit-build-core cython numpy pytest pytest-xdist hypothesis pytest-benchmark selenium
	flock $(VENV)/.build.lock $(BIN)/pip install -q --no-build-isolation -e ".[test,all]"

clean:
	rm -rf build $(VENV)
