"""How many examples a Hypothesis test tries, set by the profile that runs (registered in tests/conftest.py): under
"ci" (make test, CI) each test's own number, as it says; under "dev" (make test-fast) a tenth of it, at least 5. A
test says `max_examples=examples(200)`, never a bare number, so that a quick run can lower every one of them."""

from hypothesis import settings

CI_EXAMPLES = 100  # the "ci" profile's max_examples (Hypothesis's own default): the scale of 1


def examples(ci: int) -> int:
    scale = settings.default.max_examples / CI_EXAMPLES
    return ci if scale >= 1 else max(5, round(ci * scale))
