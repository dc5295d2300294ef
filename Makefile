# Context Desk — every target builds .venv first if it is missing (GNU make).
#
#   make lab        open the workbook in JupyterLab (offline, no API key needed)
#   make test       run every test, offline (installs Debian's Chromium when run as root)
#   make bench      strategy comparison and speed benchmarks
#   make slides     build the offline slide decks
#   make present    open JupyterLab on the first deck, to present live (RISE: Alt+R)
#   make exercises  regenerate the student copies from the solution notebooks
#   make clean      remove caches and build output (make distclean also removes .venv)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CHROMIUM ?= /usr/bin/chromium

# JupyterLab refuses to start as root unless told it is fine.
ALLOW_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: venv lab browser-deps test bench slides present exercises clean distclean

# ---- the environment --------------------------------------------------------

# Rebuilt whenever the dependencies or the package definition change.
$(STAMP): requirements.txt pyproject.toml tools/lab_settings.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install -r requirements.txt
	$(PY) tools/lab_settings.py
	touch $@

venv: $(STAMP)

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

# make fails on any non-zero pytest exit, including 5 (no tests collected).
test: $(STAMP) browser-deps
	$(PY) -m pytest $(PYTEST_ARGS)

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

clean:
	rm -rf build/ test-artifacts/ .pytest_cache/ .hypothesis/ *.egg-info/
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -prune \
		-exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
