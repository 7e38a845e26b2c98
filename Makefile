# Two entry points: `make reproduce` (notebooks -> figures/) and `make test`.
# Both build .venv first (needs Python 3.11+). `make reproduce ARGS="--quick --only tour"`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: reproduce test lint clean-venv

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

reproduce: $(STAMP)
	$(BIN)/python -m mce_kit.reproduce $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check mce_kit tests notebooks/src
	$(BIN)/python -m mce_kit.notebooks check notebooks

clean-venv:
	rm -rf $(VENV)
