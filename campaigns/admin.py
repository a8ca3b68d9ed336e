from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign, Event, Invitation, Membership
from rules import actions, events
from rules.admin import ReadOnlyAdmin


class MembershipInline(admin.TabularInline):
    """A member's role (player or co-GM) changes at the table, through the owner's logged actions: shown only."""

    model = Membership
    extra = 0
    readonly_fields = ["role"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    """A changed name, GM or party view goes through rules.actions.edit_campaign: logged, undoable, and the old GM's
    open screens stop receiving the campaign. Deleting goes through rules.actions.delete_campaign, which deletes the
    log, characters and diseases that are read only here (the admin's own confirmation page stands for the typed
    name)."""

    list_display = ["name", "gm", "clock", "version", "created"]
    search_fields = ["name", "gm__username"]
    # Time between sessions is set at the GM's table (rules.actions.set_running_time), logged and undoable there.
    readonly_fields = [
        "clock",
        "version",
        "created",
        "runs",
        "run_rate",
        "run_hour",
        "run_zone",
        "run_from",
        "run_next",
    ]
    inlines = [MembershipInline]

    def save_model(self, request: HttpRequest, obj: Campaign, form: ModelForm[Any], change: bool) -> None:
        if not change:
            super().save_model(request, obj, form, change)  # a new campaign: nothing to log yet
            return
        actions.edit_campaign(obj.pk, name=obj.name, gm=obj.gm, party_view=obj.party_view, by=request.user)

    def get_deleted_objects(
        self, objs: Sequence[Model] | QuerySet[Any], request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[str]]:
        # The list of what goes stays; the permissions on the read-only rows and the episodes protecting a disease
        # do not stop it: delete_campaign takes them in the right order.
        deleted, counts, _permissions, _protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), []

    def delete_model(self, request: HttpRequest, obj: Campaign) -> None:
        actions.delete_campaign(obj.pk, by=request.user, typed_name=None)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        for pk in queryset.values_list("pk", flat=True):
            actions.delete_campaign(pk, by=request.user, typed_name=None)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["campaign", "user", "role", "joined"]
    readonly_fields = ["role"]
    search_fields = ["campaign__name", "user__username"]


@admin.register(Invitation)
class InvitationAdmin(ReadOnlyAdmin):
    """Links are made, revoked and claimed at the table (rules.actions), where each is logged."""

    list_display = ["character", "campaign", "created", "claimed_by", "claimed_at", "revoked_at"]
    search_fields = ["character__name", "campaign__name"]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """The campaign log: append-only, so read-only here too."""

    list_display = ["id", "campaign", "kind", "clock_before", "clock_after", "actor", "undone", "created"]
    list_filter = ["action", "undone", "campaign"]
    search_fields = ["campaign__name", "action"]
    readonly_fields = [
        "campaign",
        "action",
        "actor",
        "clock_before",
        "clock_after",
        "created",
        "characters",
        "details",
        "before",
        "after",
        "undone",
        "undone_at",
        "undone_by",
    ]

    @admin.display(description=_("acción"), ordering="action")
    def kind(self, event: Event) -> str:
        return events.label_of(event.action)
