from typing import Any, cast

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy as _

from .models import Campaign


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name"]


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


class CampaignImportForm(forms.Form):
    file = forms.FileField(label=_("Copia de la campaña (.json)"))


class CampaignDeleteForm(forms.Form):
    name = forms.CharField(
        label=_("Nombre de la campaña"),
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "spellcheck": "false"}),
    )
