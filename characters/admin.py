from django.contrib import admin

from .models import Character


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "player", "constitution", "jump", "heal_wounds", "weight_kg"]
    list_filter = ["campaign"]
    search_fields = ["name", "campaign__name", "player__username"]
