# Two commands matter: `make demo` (the main job) and `make test` (the whole suite).
# Each installs what it needs into .venv first; only python3 (3.11+), bash and make are assumed.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test bench docs clean playouts

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
	$(VENV)/bin/python bench/bench_playouts.py
	$(VENV)/bin/python bench/bench_postgres.py
	$(VENV)/bin/python bench/bench_server.py
	$(VENV)/bin/python bench/bench_report.py
	PYTHONPATH=src $(VENV)/bin/python bench/bench_verify.py

# More random playouts than make test plays: make playouts N=500
playouts: $(STAMP)
	COMBATLOG_PLAYOUTS=$(or $(N),200) $(VENV)/bin/python -m pytest tests/rulesets/test_playouts.py -q -x -k in_process

docs: $(STAMP)
	$(VENV)/bin/python -m combatlog.tools.gendocs

clean:
	rm -rf $(VENV) demo build src/*.egg-info
