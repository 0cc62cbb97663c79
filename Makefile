# Two set-up commands: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test
OUT ?= out/demo

.PHONY: demo test lint format bench clean venv

# The packages come from PyPI through uv (itself a PyPI package, installed into the venv by
# pip), which fetches and unpacks them in parallel: a clean clone's install took 20 s instead
# of pip's 47 s on the 2-core machine, the same 105 packages at the same versions. Bytecode is
# compiled at install time, as pip does (a process started with PYTHONDONTWRITEBYTECODE would
# otherwise compile pandas, SciPy, ... on every import). Where uv cannot be installed, or
# fails (no route to PyPI but a mirror configured for pip), pip does the work.
INSTALL = { [ -x $(BIN)/uv ] && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode $(1); } || \
	$(BIN)/python -m pip install --quiet $(1)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv || echo "uv not installed: pip installs the packages"

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(call INSTALL,-e ".[models]")
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(call INSTALL,-e ".[test]")
	touch $@ $(VENV)/.installed

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/primafacie demo --out $(OUT)

# One worker per core (pytest-xdist); a test module stays on one worker (--dist loadscope) so
# its module-scoped fixtures (an audit folder, a browser page) are built once. Modules are handed
# out in collection order, which tests/conftest.py starts with the most expensive ones
# (HEAVY_FIRST), so the workers finish together on small modules; xdist's own reorder (most
# tests first) is turned off because it queued the longest modules last. src/ is compiled
# first: an editable install leaves it uncompiled, and with PYTHONDONTWRITEBYTECODE set every
# worker and every CLI subprocess of the tests would compile what it imports again (all of
# src: 0.9 s CPU).
test: $(STAMP)
	$(BIN)/python -m compileall -q src
	$(BIN)/python -m pytest -q -p no:cacheprovider -n auto --dist loadscope --no-loadscope-reorder

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools conftest.py
	$(BIN)/ruff format --check src tests benchmarks tools conftest.py

format: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks tools conftest.py
	$(BIN)/ruff format src tests benchmarks tools conftest.py

bench: $(VENV)/.installed
	@for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) out build *.egg-info src/*.egg-info
