# Two commands on a fresh machine with Python 3 and pip:
#   make demo   set up .venv on first use and run the main job
#   make test   set up .venv on first use and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
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
