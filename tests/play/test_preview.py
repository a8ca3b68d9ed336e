"""Preview, then commit, a time skip at the GM's table: "Ver antes qué pasará" shows what the advance will do and
writes nothing; "Aplicar" commits exactly that; if anything changed since, the GM gets the new preview instead."""

import re

from campaigns.models import Campaign
from rules import actions, engine
from rules.damage import Attack
from tests.helpers import HTMX, World, client_for, plague, reload, snapshot
from tests.play.test_views import act_url
from tests.regions import element_by_id, regions_in


def hidden_fields(html: str) -> list[tuple[str, str]]:
    form = re.search(r'<form method="post".*?</form>', html.split('id="preview-title"', 1)[1], re.S).group(0)
    return re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', form)


def preview(world: World, data: dict) -> str:
    response = client_for(world.gm_a).post(
        act_url(world, "advance"), {"slot": "advance", "preview_first": "on", **data}, **HTMX
    )
    assert response.status_code == 200 and response["HX-Retarget"] == "#advance-preview"
    return response.content.decode()


def apply(world: World, html: str):
    data: dict[str, list[str]] = {}
    for name, value in hidden_fields(html):
        data.setdefault(name, []).append(value)
    return client_for(world.gm_a).post(act_url(world, "advance"), data, **HTMX)


def test_a_preview_says_what_will_happen_and_changes_nothing(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=10), by=world.gm_a)
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    before = snapshot()
    html = preview(world, {"duration": "3w", "resting": [world.char_a1.pk, world.char_a2.pk]})
    assert snapshot() == before
    assert "¿Qué pasará?" in html and "Si avanzas 3 semanas (Día 1, 00:00 → Día 22, 00:00)" in html
    # 10 days of rest heal the attack; the plague takes 1 PG a week, not healed before a cure
    assert "Aldara</strong>: 70 → <strong>77</strong> / 80 PG" in html
    assert "Ataque físico directo: sana del todo el Día 11, 00:00" in html
    assert "Peste: −3 PG en 3 semanas, del Día 8, 00:00 al Día 22, 00:00" in html
    assert "no descansa" in html  # Tomás was not ticked


def test_a_wound_that_recovers_only_in_part_is_said_and_never_called_no_change(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=10), by=world.gm_a)
    html = preview(world, {"duration": "3d", "resting": [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]})
    aldara = html.split("Aldara</strong>", 1)[1].split("</li>\n", 1)[0]
    assert ": 70 → <strong>73</strong> / 80 PG" in aldara
    assert "Ataque físico directo: recupera 3 PG, quedan −7" in aldara
    assert "sin cambios" not in aldara
    assert "sin cambios" in html.split(world.char_a2.name + "</strong>", 1)[1]  # unhurt: nothing happens to them


def test_applying_commits_exactly_what_was_previewed(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=10), by=world.gm_a)
    html = preview(world, {"preset": "604800", "resting": [world.char_a1.pk]})
    response = apply(world, html)
    assert response.status_code == 200
    answer = response.content.decode()
    # the preview closed, the clock's form drawn anew in place of the one sent, the clock moved
    assert element_by_id(answer, "advance-preview").inner == ""
    [form] = [part for part in regions_in(answer) if part.id == "form-advance"]
    assert form.attrs["data-how"] == "outer" and form.inner.lstrip().startswith('<form id="form-advance"')
    assert "Día 8, 00:00" in element_by_id(answer, "clock").html and response["X-Focus"] == "advance-duration"
    assert Campaign.objects.get(pk=world.campaign_a.pk).clock == engine.WEEK
    assert reload(world.char_a1).pg == 77  # a week of rest: 7 PG back, as previewed
    assert "77</strong> / 80 PG" in html


def test_a_change_since_the_preview_gets_the_new_preview_instead(world: World):
    everyone = [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]
    html = preview(world, {"duration": "1d", "resting": everyone, "shown": everyone})
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)  # another tab
    before = snapshot()
    response = apply(world, html)
    fresh = response.content.decode()
    assert response["HX-Retarget"] == "#advance-preview" and snapshot() == before
    assert "La mesa ha cambiado desde la previsión: esta es la nueva." in fresh
    assert "Aldara</strong>: 75 → <strong>76</strong>" in fresh
    apply(world, fresh)
    assert reload(world.char_a1).pg == 76


def test_an_open_preview_asked_for_again_is_the_new_one_and_moves_no_focus(world: World):
    # The table changed under an open preview: the page asks for it again (static/js/table.js), with its fields and
    # `redraw`. That is a preview, whatever version it names: nothing is applied, the new one says why, and the
    # keyboard stays where it is (no X-Focus).
    everyone = [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]
    html = preview(world, {"duration": "1d", "resting": everyone, "shown": everyone})
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)  # another tab
    before = snapshot()
    data: dict[str, list[str]] = {"redraw": ["on"]}
    for name, value in hidden_fields(html):
        data.setdefault(name, []).append(value)
    response = client_for(world.gm_a).post(act_url(world, "advance"), data, **HTMX)
    fresh = response.content.decode()
    assert response.status_code == 200 and response["HX-Retarget"] == "#advance-preview" and snapshot() == before
    assert "X-Focus" not in response
    assert "La mesa ha cambiado; la previsión está al día." in fresh and "{#" not in fresh
    assert "Aldara</strong>: 75 → <strong>76</strong>" in fresh
    assert dict(hidden_fields(fresh))["version"] == str(Campaign.objects.get(pk=world.campaign_a.pk).version)
    assert "La mesa ha cambiado" not in preview(world, {"duration": "1d", "resting": everyone})  # asked by the GM
    apply(world, fresh)
    assert reload(world.char_a1).pg == 76


def test_a_forged_version_or_duration_changes_nothing(world: World):
    before = snapshot()
    for data in ({"duration": "1d", "version": "²"}, {"duration": "1d", "version": "-1"}, {"duration": "99999y"}):
        response = client_for(world.gm_a).post(
            act_url(world, "advance"), {"slot": "advance", "preview_first": "on", **data}, **HTMX
        )
        assert response.status_code == 422
        assert snapshot() == before


def test_without_javascript_the_preview_is_a_page_and_applying_it_commits_it(world: World):
    """No htmx (no JavaScript): ticking "Ver antes qué pasará" shows the preview as a page, with "Aplicar" and a way
    back; nothing is applied until "Aplicar"."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=10), by=world.gm_a)
    gm = client_for(world.gm_a)
    before = snapshot()
    data = {"slot": "advance", "preview_first": "on", "preset": "604800", "resting": [world.char_a1.pk]}
    response = gm.post(act_url(world, "advance"), data)
    html = response.content.decode()
    assert response.status_code == 200 and snapshot() == before
    assert "¿Qué pasará?" in html and "Aldara</strong>: 70 → <strong>77</strong> / 80 PG" in html
    assert f'<a href="/campaigns/{world.campaign_a.pk}/">Cancelar</a>' in html and "data-close-preview" not in html
    fields: dict[str, list[str]] = {}
    for name, value in hidden_fields(html):
        fields.setdefault(name, []).append(value)
    applied = gm.post(act_url(world, "advance"), fields)
    assert applied.status_code == 302 and reload(world.char_a1).pg == 77
    refused = gm.post(act_url(world, "advance"), {**data, "preset": "", "duration": "soon"})
    assert refused.status_code == 400 and "errorlist" in refused.text and reload(world.char_a1).pg == 77
