from django.contrib import admin

from rules.admin import ReadOnlyAdmin

from .models import Campaign, Event, Invitation, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "gm", "clock", "version", "created"]
    search_fields = ["name", "gm__username"]
    readonly_fields = ["clock", "version", "created"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["campaign", "user", "joined"]
    search_fields = ["campaign__name", "user__username"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["character", "campaign", "created", "claimed_by", "claimed_at"]
    search_fields = ["character__name", "campaign__name"]
    readonly_fields = ["token", "created"]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """The campaign log: append-only, so read-only here too."""

    list_display = ["id", "campaign", "action", "clock_before", "clock_after", "actor", "undone", "created"]
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
