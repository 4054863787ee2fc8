# GPU Advisor — the two commands in the README are `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-16)

export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_OFFLINE := 1
export HF_HUB_DISABLE_TELEMETRY := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: setup run test eval bench clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "需要 Python 3.11 / Python 3.11 is required ($(PY) not found)"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

setup: $(STAMP)

## Run the app on its offline default (the web page on http://127.0.0.1:7860).
run: setup
	$(BIN)/gpu-advisor serve

## Run the whole test suite.
test: setup
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

## Run the offline eval suite (fails below 95%).
eval: setup
	$(BIN)/gpu-advisor eval --min-pass-rate 0.95

## Print every benchmark figure in one table.
bench: setup
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
