# The README's two commands: `make run` and `make test`.
.PHONY: run test venv lint messages bench bench-live

venv:
	@bash scripts/bootstrap.sh

run: venv
	@.venv/bin/python scripts/dev.py run

# The checked contracts (DESIGN.md principle 9): lint, formatting, types and the import layering.
lint: venv
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/lint-imports --no-cache

test: lint
	@bash scripts/ensure_test_tools.sh
	@.venv/bin/python scripts/dev.py test --durations=25 -rs $(PYTEST_ARGS)

# Rebuild the translation catalogues after changing user-facing strings (needs gettext).
messages: venv
	.venv/bin/python manage.py makemessages -l es -l en -e html,txt,py,jinja --ignore=.venv --ignore=.data
	.venv/bin/python manage.py compilemessages --ignore=.venv


# Benchmarks print figures (see bench/RESULTS.md); they are not tests.
bench: venv
	@.venv/bin/python scripts/dev.py bench bench/advance_engine.py
	@.venv/bin/python scripts/dev.py bench bench/advance.py

# Issue 22's figures: click → every screen at 10, 200 and 1000 SSE clients and 100 campaigns × 6 for the app, the
# stack floor (bench/stack_floor.py) and the physical floor in the same run, a reconnect storm, the table GET against
# a minimal view, CPU per change over 4 processes, the time-skip preview, the goals table; then the advance against
# the engine; about 15 minutes. BENCH_ARGS=--quick tries it in about 3 minutes.
bench-live: venv
	@.venv/bin/python scripts/dev.py bench bench/live.py $(BENCH_ARGS)
	@.venv/bin/python scripts/dev.py bench bench/advance.py $(if $(findstring --quick,$(BENCH_ARGS)),100 500,)
