"""The forms of accounts: logging in, signing up, and making a personal access token for the API."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any, cast

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy as _

from campaigns import access
from campaigns.models import AccessToken, Campaign, TokenScope
from play.forms.base import ActionForm
from rules.actions import tokens


class LoginForm(AuthenticationForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # AuthenticationForm sets max_length after building the field, so it is never checked: a longer name would
        # reach django-axes's log of attempts (255 characters) and fail there.
        field = cast(forms.CharField, self.fields["username"])
        if field.max_length is not None:
            field.validators.append(MaxLengthValidator(field.max_length))


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class TokenForm(ActionForm[User, tuple[AccessToken, str]], forms.Form):
    """A new personal access token for the API (rules.actions.tokens.create_token): shown once."""

    name = forms.CharField(label=_("Nombre"), max_length=100, help_text=_("Para qué es: «Bot de Discord», «Foundry»."))
    scope = forms.ChoiceField(label=_("Puede"), choices=TokenScope.choices, initial=TokenScope.READ)
    campaign = forms.ModelChoiceField(
        label=_("Solo la campaña"), queryset=Campaign.objects.none(), required=False, empty_label=_("— todas —")
    )
    expires = forms.DateField(
        label=_("Caduca el"),
        required=False,
        help_text=_("Vacío: no caduca (puedes anularlo cuando quieras)."),
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        field = cast(forms.ModelChoiceField, self.fields["campaign"])
        field.queryset = access.campaigns_of(user).order_by("name", "id")

    def perform(self, by: User) -> tuple[AccessToken, str]:
        data = self.cleaned_data
        day = data["expires"]
        expires = None if day is None else datetime.combine(day, time.max, tzinfo=UTC)
        return tokens.create_token(
            by, name=data["name"], scope=data["scope"], campaign=data["campaign"], expires=expires
        )
