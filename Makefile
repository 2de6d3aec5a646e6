# Every target installs what it needs (venv, pip, npm, Debian packages) by itself.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
QUERY ?= How do context managers and the with statement work in Python?
PYTEST_ARGS ?=

.PHONY: setup demo test test-unit test-contract test-integration test-e2e lint format bench bench-record profile eval \
        serve serve-azure-local demo-azure-local infra-check system-deps node-deps clean

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-embed.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-embed.txt
	touch $@

setup: $(VENV)/.installed

node-deps: tests/emulators/node_modules/.installed
tests/emulators/node_modules/.installed: tests/emulators/package-lock.json
	@if command -v npm >/dev/null; then cd tests/emulators && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	 else echo "!!! npm not found: emulator tests (Azurite, Cosmos stand-in) are skipped locally and FAIL under CI=true"; fi

# pdftotext (poppler-utils) for the PDF tests; DejaVu as a second Unicode font;
# chromium for the web page's browser tests (Playwright drives it: no browser download).
system-deps:
	@missing=""; \
	 command -v pdftotext >/dev/null || missing="$$missing poppler-utils fonts-dejavu-core"; \
	 command -v chromium >/dev/null || missing="$$missing chromium"; \
	 if [ -n "$$missing" ]; then \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	   else echo "!!! install the Debian packages$$missing (PDF text checks, browser tests)"; fi; fi

# CLARIFY=0 skips the clarifying questions the demo may otherwise ask in the terminal.
demo: setup
	$(PY) -m devhost research "$(QUERY)" --out out $(if $(filter 0 false no,$(CLARIFY)),--no-clarify)

test: setup node-deps system-deps lint infra-check
	$(PY) -m pytest -q $(PYTEST_ARGS)

test-unit: setup
	$(PY) -m pytest -q tests/unit $(PYTEST_ARGS)

test-contract: setup node-deps
	$(PY) -m pytest -q tests/contract $(PYTEST_ARGS)

test-integration: setup node-deps system-deps
	$(PY) -m pytest -q tests/integration $(PYTEST_ARGS)

test-e2e: setup node-deps system-deps
	$(PY) -m pytest -q tests/e2e $(PYTEST_ARGS)

# lint-imports checks the layers declared in pyproject.toml ([tool.importlinter]).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Prints the table and writes out/bench/RESULTS.md (untracked); bench-record rewrites bench/RESULTS.md.
bench: setup
	$(PY) -m bench.run

bench-record: setup
	$(PY) -m bench.run --record

# Report quality (bench/eval): RACE-style judge scores and FACT-style citation checks over the
# shipped tasks (EVAL_ARGS="--drb-queries query.jsonl --drb-references reference.jsonl" for
# DeepResearch Bench); prints the table and writes out/eval/results.json. docs/evaluation.md.
EVAL_ARGS ?=
eval: setup
	$(PY) -m bench.eval $(EVAL_ARGS)

# cProfile of one deep research against the fake LLM: where the researcher's CPU time goes.
profile: setup
	$(PY) -m bench.profile

serve: setup
	$(PY) -m devhost serve

serve-azure-local: setup node-deps
	$(PY) -m tests.emulators serve

demo-azure-local: setup node-deps
	$(PY) -m tests.emulators research "$(QUERY)" --out out

# checkov lives in its own venv: it pins many packages of its own.
.venv-checkov/.installed:
	$(PYTHON) -m venv .venv-checkov
	.venv-checkov/bin/pip install --quiet checkov==3.3.30
	touch $@

infra-check: .venv-checkov/.installed
	@out=$$(.venv-checkov/bin/checkov --framework bicep -d infra --skip-download --compact --quiet 2>&1); \
	 status=$$?; echo "$$out" | tail -n 5; \
	 if echo "$$out" | grep -q "Parsing errors"; then echo "checkov could not parse a template"; exit 1; fi; \
	 exit $$status

clean:
	rm -rf $(VENV) .venv-checkov out .data tests/emulators/node_modules
