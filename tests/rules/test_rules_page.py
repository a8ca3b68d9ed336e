"""The rules page says what the engine does: every number on it is read from the engine, and each line a "¿Por qué?"
link points at exists, in Spanish and in English."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from rules import engine, explained
from rules.models import BUILTIN_DISEASES
from rules.signs import signed


def row_cells(html: str, anchor: str) -> list[str]:
    row = re.search(rf'<tr id="{anchor}">(.*?)</tr>', html, re.S)
    assert row, f"no row {anchor}"
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row.group(1))]


@pytest.fixture
def page(client, db) -> str:
    response = client.get(reverse("rules"))  # no account needed
    assert response.status_code == 200
    return response.content.decode()


def test_the_penalty_table_is_the_engines(page):
    for pg in range(0, 13):
        cells = row_cells(page, explained.penalty_anchor(pg))
        penalties = engine.penalties(pg)
        if penalties.dead:
            assert cells[0] == "0" and cells[1] == "muerto"
            continue
        assert cells[1:] == [
            signed(penalties.physical),
            signed(penalties.other),
            "sí" if penalties.exertion else "no",
        ], pg
    assert row_cells(page, "penalty-4")[0] == "3–4"
    assert row_cells(page, "penalty-none")[0] == "11 o más"


def test_recovery_and_damage_come_from_the_engine(page):
    assert row_cells(page, "recovery-attack")[1:] == ["1 día", "12 h", "solo descansando"]
    assert row_cells(page, "recovery-drowning")[1:] == ["1 min", "30 s", "siempre"]
    assert row_cells(page, "recovery-collision")[1] == "2 días"
    assert f"A 60 km/h con 75 kg: {engine.collision_damage(60, 75)} PG" in page
    assert f"1d{engine.FALL_DIE} + Saltar" in page
    assert f"1d{engine.RESISTANCE_DIE} + CON contra {engine.RESISTANCE_DIFFICULTY['common']} (común)" in page
    assert "Con 1 a 4 PG" in page and f"contra {engine.EXERTION_DIFFICULTY}" in page
    for index, (name, category, penalty, per_week) in enumerate(BUILTIN_DISEASES):
        words = {"common": "común", "serious": "grave"}[category]
        weekly = "—" if per_week is None else str(per_week)
        assert row_cells(page, f"disease-{index}") == [name, words, signed(penalty), weekly]


def test_every_anchor_a_link_can_name_is_on_the_page(page):
    anchors = set(re.findall(r'id="([a-z0-9-]+)"', page))
    for pg in range(0, 300):
        assert explained.penalty_anchor(pg) in anchors
    for check in ("fall", "resistance", "exertion"):
        assert explained.check_anchor(check) in anchors
    assert explained.why("penalty-4") == "/rules/#penalty-4"


def test_in_english(client, db):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get(reverse("rules")).content.decode()
    assert row_cells(page, "recovery-attack")[1:] == ["1 day", "12 h", "only while resting"]
    assert row_cells(page, "penalty-none")[0] == "11 or more"
    assert "Hit points" in page


# --- the band words: what the other players read of a character (issue 13) --------------------------------------------

SETTLED = {  # PG → word, issue 13's reading of docs/rules.md §4 (full PG is Ileso whatever the CON)
    0: "dead",
    1: "dying",
    2: "dying",
    3: "grave",
    6: "grave",
    7: "badly-hurt",
    10: "badly-hurt",
    11: "hurt",
    79: "hurt",
    80: "unhurt",
}


def health_at(constitution: int, pg: int) -> engine.Health:
    health = engine.Health(constitution)
    lost = health.max_pg - pg
    return engine.Health(constitution, wounds=(engine.Wound("attack", lost),) if lost else (), now=0)


@pytest.mark.parametrize(("pg", "key"), SETTLED.items())
def test_the_word_for_each_pg(pg: int, key: str):
    assert engine.condition_of(health_at(8, pg)) == key


def test_every_pg_has_the_word_of_its_row_of_the_penalty_table():
    """Two rows share a word, and a word never spans two different penalties of one row."""
    for constitution in (1, 2, 8, 30):
        top = engine.max_pg(constitution)
        for pg in range(top + 1):
            key = engine.condition_of(health_at(constitution, pg))
            if pg == 0:
                assert key == "dead"
            elif pg == top:
                assert key == "unhurt"
            else:
                row = engine.penalty_row(pg)
                words = {None: "hurt", 10: "badly-hurt", 8: "badly-hurt", 6: "grave", 4: "grave", 2: "dying"}
                assert key == words[row], (constitution, pg)
    died = engine.Health(8, died_at=5)
    assert engine.condition_of(died) == "dead"


def test_the_words_on_the_rules_page(page, client):
    assert row_cells(page, "condition-unhurt") == ["Ileso", "sus PG máximos"]
    assert row_cells(page, "condition-hurt") == ["Herido", "11 o más, sin llegar al máximo"]
    assert row_cells(page, "condition-badly-hurt") == ["Malherido", "7–10"]
    assert row_cells(page, "condition-grave") == ["Grave", "3–6"]
    assert row_cells(page, "condition-dying") == ["Moribundo", "1–2"]
    assert row_cells(page, "condition-dead") == ["Muerto", "0"]
    assert 'href="#conditions"' in page  # in the table of contents
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    english = client.get(reverse("rules")).content.decode()
    with translation.override("en"):
        assert f'<th scope="row">{explained.CONDITIONS["grave"]}</th>' in english
