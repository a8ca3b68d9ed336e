"""The "new version" of the rolling deploy test (tests/cluster/test_operations.py): the app as it is, plus one migration
that adds a column, as a new version's first migration may (add first, remove later: README "Deploying a new
version"). Installed by tests/cluster/deployed_settings.py only."""
