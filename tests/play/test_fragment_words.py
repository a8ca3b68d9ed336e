"""The fragments every change draws in the reader's language — a card's state with its PG, wounds and illnesses, on
the card and on the sheet, a log and its entries, a player's companions (play/jinja2/, play.jinja); the undo button
(templates/components/): every word is in the catalogue that `make messages` builds; a name is escaped wherever it
goes; a duration's own markup (its exact time in a tooltip) is kept."""

import re
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils import translation

import play
from characters.models import Character
from rules import actions
from rules.damage import Attack, Gas
from tests.helpers import World, client_for, fall_ill, plague

JINJA = sorted((Path(play.__file__).parent / "jinja2").glob("*.jinja"))
DJANGO = [Path(settings.BASE_DIR) / "templates" / "components" / f"{name}.html" for name in ("undo_button",)]
WORD = re.compile(r"""_\((?:"([^"]*)"|'([^']*)')\)""")  # as Django's makemessages finds them: the string closed at once
TRANSLATE = re.compile(r"""{% translate (?:"([^"]*)"|'([^']*)') %}""")
BLOCK = re.compile(r"{% blocktranslate[^%]*%}(.*?){% endblocktranslate %}")


def msgid(block: str) -> str:
    """A blocktranslate's words as the catalogue has them: each `{{ name }}` as `%(name)s`."""
    return re.sub(r"{{ (\w+) }}", r"%(\1)s", block)


def test_every_word_of_the_fragments_is_found_by_makemessages_and_translated():
    jinja = [path.read_text() for path in JINJA]
    assert {path.name for path in JINJA} == {
        "card_state.jinja",
        "pg.jinja",
        "pg_parts.jinja",
        "wounds.jinja",
        "illnesses.jinja",
        "log.jinja",
        "log_entry.jinja",
        "party.jinja",
    }
    # Each `_(` opens a string closed at once (`_("…%(n)s") % {…}`, never `_("…", n=…)`): makemessages reads no other.
    assert [text.count("_(") for text in jinja] == [len(WORD.findall(text)) for text in jinja]
    words = {one or other for text in jinja for one, other in WORD.findall(text)}
    django = [path.read_text() for path in DJANGO]
    words |= {one or other for text in django for one, other in TRANSLATE.findall(text)}
    words |= {msgid(block) for text in django for block in BLOCK.findall(text)}
    assert "¿Por qué %(n)s?" in words and "Deshacer: %(what)s" in words
    with translation.override("en"):
        untranslated = sorted(word for word in words if translation.gettext(word) == word)
    assert len(words) >= 25 and untranslated == []


def sick_and_wounded(world: World, name: str) -> Character:
    Character.objects.filter(pk=world.char_a1.pk).update(name=name)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=1), by=world.gm_a)  # heals, resting or not
    fall_ill(world, world.char_a1, plague())
    return Character.objects.get(pk=world.char_a1.pk)


def test_a_name_is_escaped_and_a_durations_markup_kept_on_the_card_and_the_sheet(world: World):
    character = sick_and_wounded(world, '<b>"O\'Neil" & co</b>')
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    sheet_url = reverse("character", args=[world.campaign_a.pk, character.pk])
    sheet = client_for(world.player_a).get(sheet_url).content.decode()
    companions = client_for(world.player_a2).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert 'class="companion-name">&lt;b&gt;' in companions and "<b>" not in companions
    for page in (table, sheet):
        assert "<b>" not in page and "&lt;b&gt;" in page
        assert 'class="pg-value">' in page and "Peste" in page
    assert 'class="entry' in table and 'id="undo-submit"' in table
    card = table[table.index(f'id="card-{character.pk}"') :]
    assert f'<a href="{sheet_url}">&lt;b&gt;' in card and "sana en" in card
    assert re.search(r'sana en (<span title="[^"<>]+">)?[^<>]+(</span>)? de descanso', card)
    assert re.search(r"Sana del todo en (<span title=\"[^\"<>]+\">)?[^<>]+(</span>)? de descanso\.", sheet)
    assert re.search(r"Sana del todo en (<span title=\"[^\"<>]+\">)?[^<>]+(</span>)?, descanse o no\.", sheet)
    assert "¿Por qué −" in sheet and "a todas las tiradas" in sheet and "&lt;span" not in sheet + card


def test_the_card_and_the_sheet_read_in_english(world: World):
    character = sick_and_wounded(world, "Aldara")
    english = {"HTTP_ACCEPT_LANGUAGE": "en"}
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk]), **english).content.decode()
    sheet_url = reverse("character", args=[world.campaign_a.pk, character.pk])
    sheet = client_for(world.gm_a).get(sheet_url, **english).content.decode()
    assert "HP over time" in table and "Why −" in table and "to every roll" in table
    assert "PG en el tiempo" not in table and "a todas las tiradas" not in table + sheet
    assert "Why −" in sheet and "every week" in sheet
