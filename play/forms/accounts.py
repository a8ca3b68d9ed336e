"""The forms of accounts: logging in and signing up."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator


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
