from typing import Any

import pytest

from rules import backup
from tests.campaigns.documents import long_history, through_json


@pytest.fixture
def exported(db) -> dict[str, Any]:
    """The document of the demo campaign after months of play (documents.long_history)."""
    return through_json(backup.export_campaign(long_history()))
