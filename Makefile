# GPU Advisor — the two commands in the README are `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-16)

export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_OFFLINE := 1
export HF_HUB_DISABLE_TELEMETRY := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: setup run test test-fast lint format typecheck eval bench clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "需要 Python 3.11 / Python 3.11 is required ($(PY) not found)"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

setup: $(STAMP)

## Run the app on its offline default (the web page on http://127.0.0.1:7860; another port: make run PORT=7861).
PORT ?= 7860
run: setup
	$(BIN)/gpu-advisor serve --port $(PORT)

## Run the whole test suite.
test: setup
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

## The quick loop: everything but the browser, server and slow tests.
test-fast: setup
	$(BIN)/python -m pytest -q -m "not browser and not server and not slow" $(PYTEST_ARGS)

## ruff: pyflakes, bugbear, bandit-style security rules, import order, and the formatter's check.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## Apply the formatter and the safe automatic lint fixes.
format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## mypy with the pydantic plugin over assistant/, tools/ and evals/.
typecheck: setup
	$(BIN)/mypy

## Run the offline eval suite (every case must pass).
eval: setup
	$(BIN)/gpu-advisor eval --min-pass-rate 1.0

## Print every benchmark figure in one table.
bench: setup
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
