from django.contrib import admin

from .models import Campaign, Invitation, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "gm", "clock", "version", "created"]
    search_fields = ["name", "gm__username"]
    readonly_fields = ["version", "created"]
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
