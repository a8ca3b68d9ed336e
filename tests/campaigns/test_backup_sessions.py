"""Issue 25: game sessions travel in a campaign's backup (its optional `sessions` part): exported, imported as they
were, said by the log when a document has no such part, and refused when the part or the log could not be the app's."""

from __future__ import annotations

from typing import Any

from campaigns.models import GameSession
from rules import backup
from tests.campaigns.documents import changed, first_event, long_history, refusal, through_json


def played(campaign_id: int) -> list[tuple[int, bool, bool]]:
    return [(s.number, s.open, s.shared) for s in GameSession.objects.filter(campaign_id=campaign_id)]


def test_sessions_are_exported_and_imported_as_they_were(db):
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    assert [(s["number"], s["ended"] is None, s["shared_at"] is not None) for s in document["sessions"]] == [
        (1, False, True),
        (2, True, False),
    ]
    restored = backup.import_campaign(document, campaign.gm)
    assert played(restored.pk) == played(campaign.pk) == [(1, False, True), (2, False, False)][:1] + [(2, True, False)]
    first = GameSession.objects.get(campaign=restored, number=1)
    assert first.started.campaign_id == restored.pk and first.ended is not None
    assert first.shared_at == GameSession.objects.get(campaign=campaign, number=1).shared_at


def test_a_document_without_the_part_has_the_sessions_its_log_says(db):
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    del document["sessions"]
    restored = backup.import_campaign(document, campaign.gm)
    assert played(restored.pk) == played(campaign.pk)


def wrong_list(document: dict[str, Any]) -> None:
    document["sessions"][1]["ended"] = document["sessions"][0]["ended"]


def started_twice(document: dict[str, Any]) -> None:
    first_event(document, "session_started")["details"]["number"] = 2


def test_a_part_or_a_log_the_app_could_not_have_written_is_refused(db):
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    assert "$.sessions[1]" in refusal(changed(wrong_list)(document))
    message = refusal(changed(started_twice)(document))
    assert "details.number" in message and "sesión" in message
