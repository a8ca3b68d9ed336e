# The README's two commands: `make run` and `make test`.
.PHONY: run test venv lint messages

venv:
	@bash scripts/bootstrap.sh

run: venv
	@.venv/bin/python scripts/dev.py run

lint: venv
	.venv/bin/ruff check .

test: lint
	@.venv/bin/python scripts/dev.py test $(PYTEST_ARGS)

# Rebuild the translation catalogues after changing user-facing strings (needs gettext).
messages: venv
	.venv/bin/python manage.py makemessages -l es -l en --ignore=.venv --ignore=.data
	.venv/bin/python manage.py compilemessages --ignore=.venv

