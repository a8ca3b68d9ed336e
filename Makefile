# The README's two commands: `make run` and `make test`.
.PHONY: run test test-fast test-reach venv lint messages bench bench-live

venv:
	@bash scripts/bootstrap.sh

run: venv
	@.venv/bin/python scripts/dev.py run

# The checked contracts (docs/architecture.md principle 9): lint, formatting, types and the import layering.
lint: venv
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/lint-imports --no-cache

# The whole suite: in parallel on every core, then the outage and cluster tests alone (scripts/dev.py suite).
test: lint
	@bash scripts/ensure_test_tools.sh
	@.venv/bin/python scripts/dev.py suite --durations=25 -rs $(PYTEST_ARGS)

# The tests that depend on how the database is reached (connections, the pool, prepared statements, LISTEN, an
# outage, two hosts): CI runs them a second time, on this machine's PostgreSQL (DATABASE_URL).
REACH = tests/test_outage.py tests/cluster tests/test_compiled.py tests/test_removal_races.py \
	tests/test_rights_races.py tests/rules/test_notify.py tests/rules/test_concurrency.py tests/play/test_live.py \
	tests/play/test_live_access.py tests/play/test_live_sessions.py tests/play/test_reconnects.py \
	tests/play/test_stream_cap.py tests/play/test_stream_connect.py tests/play/test_stream_way.py
test-reach: venv
	@bash scripts/ensure_test_tools.sh
	@.venv/bin/python scripts/dev.py suite -rs $(REACH)

# The quick loop while changing code: no browser, outage or cluster tests; Hypothesis's "dev" profile.
test-fast: venv
	@.venv/bin/python scripts/dev.py suite --fast -q $(PYTEST_ARGS)

# Rebuild the translation catalogues after changing user-facing strings (needs gettext).
messages: venv
	.venv/bin/python manage.py makemessages -l es -l en -e html,txt,py,jinja --ignore=.venv --ignore=.data
	.venv/bin/python manage.py compilemessages --ignore=.venv


# Benchmarks print figures (see bench/RESULTS.md); they are not tests.
bench: venv
	@.venv/bin/python scripts/dev.py bench bench/advance_engine.py
	@.venv/bin/python scripts/dev.py bench bench/advance.py
	@.venv/bin/python scripts/dev.py bench bench/ticks.py
	@.venv/bin/python scripts/dev.py bench bench/api.py

# Issue 22's figures: click → every screen at 10, 200 and 1000 SSE clients and 100 campaigns × 6 for the app, the
# stack floor (bench/stack_floor.py) and the physical floor in the same run, a reconnect storm, the table GET against
# a minimal view, CPU per change over 4 processes, the time-skip preview, the goals table; then the advance against
# the engine; about 15 minutes. BENCH_ARGS=--quick tries it in about 3 minutes.
bench-live: venv
	@.venv/bin/python scripts/dev.py bench bench/live.py $(BENCH_ARGS)
	@.venv/bin/python scripts/dev.py bench bench/advance.py $(if $(findstring --quick,$(BENCH_ARGS)),100 500,)
