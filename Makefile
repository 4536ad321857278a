# Two commands matter: `make demo` (the main job) and `make test` (the whole suite).
# Each installs what it needs into .venv first; only python3 (3.11+), bash and make are assumed.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test bench docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	bash scripts/demo.sh

test: $(STAMP)
	bash scripts/test.sh

bench: $(STAMP)
	$(VENV)/bin/python bench/bench.py
	$(VENV)/bin/python bench/bench_run.py
	$(VENV)/bin/python bench/bench_postgres.py
	$(VENV)/bin/python bench/bench_server.py
	$(VENV)/bin/python bench/bench_report.py
	PYTHONPATH=src $(VENV)/bin/python bench/bench_verify.py

docs: $(STAMP)
	$(VENV)/bin/python -m combatlog.tools.gendocs

clean:
	rm -rf $(VENV) demo build src/*.egg-info
