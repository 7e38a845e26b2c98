# Two entry points: `make reproduce` (notebooks -> figures/) and `make test`.
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
	$(BIN)/python -m mce_kit.reproduce

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check mce_kit tests

clean-venv:
	rm -rf $(VENV)
