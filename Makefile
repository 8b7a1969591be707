# Quick start: `make demo` runs everything locally; `make test` runs every test. Both install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint audit format install deps influxd clean help mutation proof

help:
	@echo "make demo   - install what is missing and run the whole product on http://127.0.0.1:8000/"
	@echo "make test   - install what is missing and run every test (real Redis, InfluxDB, snmpsim, Chromium)"
	@echo "make bench  - run the benchmarks and write docs/performance.md"
	@echo "make lint   - ruff check (with its bandit security rules) and format check"
	@echo "make audit  - known-vulnerability check of the installed Python packages (pip-audit)"
	@echo "make mutation - mutation testing of the counter and legend arithmetic (mutmut), the score per module"
	@echo "make proof  - PROOF_SCENARIOS (5000) generated scenarios through the live poll path, checked against the model"

$(STAMP): requirements.txt requirements-dev.txt package.json package-lock.json
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	npm ci --no-audit --no-fund --silent
	touch $(STAMP)

install: $(STAMP)

deps:
	bash scripts/install-system-deps.sh

influxd:
	bash scripts/ensure-influxd.sh

demo: deps install influxd
	$(PY) manage.py demo

# Two workers, each a whole test file at a time (its module fixtures and agents stay in one process): the suite is
# mostly waiting on real agents, databases and browsers, so two share two cores (56 minutes serial, 32 with two).
TEST_WORKERS ?= 2
test: deps install influxd
	INFLUXD=$$(bash scripts/ensure-influxd.sh) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

bench: deps install influxd
	$(PY) -m pip install --quiet -r requirements-bench.txt
	INFLUXD=$$(bash scripts/ensure-influxd.sh) $(PY) bench/run.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

audit: install
	bash scripts/audit-deps.sh

# Mutants of collectors/counters.py and monitor/timeseries/stats.py against their fast, pure tests ([tool.mutmut] in
# pyproject.toml), one at a time and niced; fails under 90 % per module or on a survivor docs/graphs.md does not explain.
mutation: install
	rm -rf mutants
	nice -n 10 $(VENV)/bin/mutmut run --max-children 1
	$(PY) scripts/mutation_score.py $(VENV)/bin/mutmut

# Generated scenarios (tests/proof/strategies.py) played through the live poll path and read through the series API,
# every answer checked against the independent model (tests/model/), in batches of 40 on one timeline each, niced;
# PROOF_JOBS processes share the batches (each with its own Redis and InfluxDB: one a core) and read at 2 of the 7
# moments a batch, in turn (the fixed set reads at all 7); prints how many scenarios of each kind ran and failed, and
# keeps every failing one in tests/proof/kept/ (which `make test` replays). Fails when any scenario failed.
PROOF_SCENARIOS ?= 5000
PROOF_JOBS ?= 2
proof: deps install influxd
	@influxd=$$(bash scripts/ensure-influxd.sh); pids=""; \
	for shard in $$(seq 0 $$(($(PROOF_JOBS) - 1))); do \
		PROOF_SCENARIOS=$(PROOF_SCENARIOS) PROOF_SHARD=$$shard/$(PROOF_JOBS) INFLUXD=$$influxd nice -n 10 $(PY) -m pytest \
			-q -s -p no:cacheprovider tests/proof/many.py & pids="$$pids $$!"; \
	done; status=0; for pid in $$pids; do wait $$pid || status=1; done; exit $$status

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) node_modules staticfiles .pytest_cache
