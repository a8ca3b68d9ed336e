from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.forms import ModelForm
from django.http import HttpRequest

from characters.models import Character
from rules import actions


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    """Characters as the site admin sees them. What the rules depend on (CON, skills, weight, player) changes only at
    the GM's table; a name or notes saved here go through the same action, so they are logged and undoable too."""

    list_display = ["name", "campaign", "player", "constitution", "pg", "jump", "heal_wounds", "weight_kg"]
    list_filter = ["campaign"]
    search_fields = ["name", "campaign__name", "player__username"]
    fields = [
        "name",
        "notes",
        "campaign",
        "player",
        "constitution",
        "jump",
        "heal_wounds",
        "weight_kg",
        "pg",
        "died_at",
    ]
    readonly_fields = ["campaign", "player", "constitution", "jump", "heal_wounds", "weight_kg", "pg", "died_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the GM adds characters at the table, where they are logged

    def has_delete_permission(self, request: HttpRequest, obj: Character | None = None) -> bool:
        return False  # the GM removes them at the table: undoable, and the log keeps their story

    def save_model(self, request: HttpRequest, obj: Character, form: ModelForm[Any], change: bool) -> None:
        current = actions.Sheet.of(Character.objects.get(pk=obj.pk))
        sheet = actions.Sheet(**{**vars(current), "name": obj.name, "notes": obj.notes})
        actions.edit_character(obj.campaign_id, obj.pk, sheet, by=request.user)
