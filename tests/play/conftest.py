import pytest

from tests.servers import asgi_server


@pytest.fixture
def server():
    with asgi_server() as base:
        yield base
