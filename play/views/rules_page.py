"""The rules page: the rules as the app applies them (rules.explained), for anyone, signed in or not."""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from rules import explained


@login_not_required
def rules_page(request: HttpRequest) -> HttpResponse:
    """The rules as the app applies them, for anyone: players look up a penalty without an account."""
    return render(request, "rules.html", {"sections": explained.sections()})
