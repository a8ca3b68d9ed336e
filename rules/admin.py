from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from rules import actions
from rules.signs import signed

from .models import CalledCheck, Disease, Illness, Wound


class SiteDiseaseForm(forms.ModelForm):
    """A shared disease as the site admin edits it: its name may not be one that is active anywhere already, told
    apart only by case or accents ("peste" beside "Peste"): "Exponer" would offer both."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        name = data.get("name")
        if name and not data.get("retired") and (clash := actions.site_name_clash(name, self.instance.pk)):
            self.add_error("name", actions.name_clash_message(clash))
        return data


@admin.register(Disease)
class DiseaseAdmin(admin.ModelAdmin):
    """The site's shared diseases, available in every campaign. A campaign's own diseases belong to its GM, who
    changes them on the campaign's diseases page (logged and undoable there): here they are read only."""

    form = SiteDiseaseForm
    list_display = ["name", "category", "shown_penalty", "pg_per_week", "campaign", "builtin", "retired"]
    list_filter = ["category", "campaign", "retired", "builtin"]
    search_fields = ["name", "campaign__name"]
    exclude = ["campaign"]
    actions = ["retire"]

    @admin.display(description=_("penalización a todas las tiradas"), ordering="penalty")
    def shown_penalty(self, disease: Disease) -> str:
        return signed(disease.penalty)  # "−2", with the minus sign every page writes

    @admin.action(description=_("Retirar las enfermedades seleccionadas"))
    def retire(self, request: HttpRequest, queryset: QuerySet[Disease]) -> None:
        actions.retire_site_diseases(queryset)

    def save_model(self, request: HttpRequest, obj: Disease, form: Any, change: bool) -> None:
        actions.save_site_disease(obj)  # the campaigns whose cards name it are drawn again, live

    def has_change_permission(self, request: HttpRequest, obj: Disease | None = None) -> bool:
        if obj is not None and obj.campaign_id is not None:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Disease | None = None) -> bool:
        # A disease someone has had stays: history points at it. Retire it instead.
        if obj is not None and (obj.builtin or obj.campaign_id is not None or obj.illnesses.exists()):
            return False
        return super().has_delete_permission(request, obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Game state changes only through rules.actions; the admin shows it."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Wound)
class WoundAdmin(ReadOnlyAdmin):
    list_display = ["character", "kind", "amount", "remaining", "treated", "inflicted_at", "times", "every"]
    list_filter = ["kind", "treated", "character__campaign"]
    search_fields = ["character__name"]


@admin.register(Illness)
class IllnessAdmin(ReadOnlyAdmin):
    list_display = ["character", "disease", "since", "treated", "medicated", "cured_at"]
    list_filter = ["category", "character__campaign"]
    search_fields = ["character__name", "disease__name"]


@admin.register(CalledCheck)
class CalledCheckAdmin(ReadOnlyAdmin):
    """Called at the table, answered on the players' phones (rules.actions.checks)."""

    list_display = ["character", "kind", "status", "campaign", "called"]
    list_filter = ["kind", "status", "campaign"]
    search_fields = ["character__name"]
