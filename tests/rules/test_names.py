"""Issue 48, items 12 and 13: names the app takes are one form of each name (rules.actions.core.checked_name), so
that two names that look alike are one; "Añadir varios" numbers on past any number of digits, never giving a name
taken."""

import pytest

from characters.models import Character, NpcTemplate
from rules import actions
from rules.actions import ActionError, Sheet
from rules.actions.core import checked_name
from rules.actions.npcs import numbered_names
from tests.helpers import World


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Lo\u200bbo", "Lobo"),  # a zero-width space
        ("\ufeffLobo\u200d", "Lobo"),  # a byte-order mark, a zero-width joiner
        ("\u202eLobo", "Lobo"),  # a direction override
        ("Lo\u00adbo", "Lobo"),  # a soft hyphen
        ("ｌｏｂｏ", "lobo"),  # full-width letters (NFKC)
        ("  Lobo \t del\u00a0 bosque  ", "Lobo del bosque"),  # runs of spaces, a no-break space
        ("Cafe\u0301", "Café"),  # a combining accent: composed
    ],
)
def test_a_name_is_kept_in_one_form(typed: str, kept: str):
    assert checked_name(typed, 100) == kept


@pytest.mark.parametrize("typed", ["\u200b", " \u200b\u200d ", "", "a" * 101, "a\x00b"])
def test_a_name_of_nothing_visible_or_too_long_is_refused(typed: str):
    with pytest.raises(ActionError):
        checked_name(typed, 100)


def test_numbers_count_past_nine_digits():
    taken = ["Alto 999999999", "Alto 1000000000", "Alto 1000000001", "Alto x", "Altos 5"]
    assert numbered_names("Alto", 2, taken) == ["Alto 1000000002", "Alto 1000000003"]
    assert numbered_names("Lobo # del bosque", 1, ["Lobo 12345678901 del bosque"]) == ["Lobo 12345678902 del bosque"]


def test_adding_several_twice_past_nine_digits_never_repeats_a_name(world: World):
    actions.add_character(world.campaign_a, Sheet("Alto 999999999", 5), by=world.gm_a)
    for _ in range(2):
        actions.add_characters(world.campaign_a, Sheet("Alto", 5), 2, by=world.gm_a)
    names = list(
        Character.objects.filter(campaign=world.campaign_a, name__startswith="Alto").values_list("name", flat=True)
    )
    assert sorted(names) == [
        "Alto 1000000000",
        "Alto 1000000001",
        "Alto 1000000002",
        "Alto 1000000003",
        "Alto 999999999",
    ]


def test_two_templates_never_differ_by_an_invisible_character(world: World):
    actions.save_template(world.campaign_a, Sheet("Lobo", 3), 2, by=world.gm_a)
    actions.save_template(world.campaign_a, Sheet("Lo\u200bbo", 3), 4, by=world.gm_a)
    assert list(NpcTemplate.objects.filter(campaign=world.campaign_a).values_list("name", "count")) == [("Lobo", 4)]


def test_a_characters_name_is_kept_in_one_form(world: World):
    added = actions.add_character(world.campaign_a, Sheet("Al\u200bdara  Segunda", 5), by=world.gm_a).characters[0]
    assert added.name == "Aldara Segunda"
