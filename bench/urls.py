"""The project's URLs plus the floor of the table GET (bench/live.py): a minimal Django view doing one query."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from campaigns.models import Campaign
from config.urls import urlpatterns as project_urlpatterns


def minimal(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Behind the same middleware as the table (so the session and the user are looked up too), one query of its own."""
    name = Campaign.objects.filter(pk=campaign_id).values_list("name", flat=True).first()
    return HttpResponse(f"<!doctype html><title>{name}</title><p>{name}</p>")


urlpatterns = [*project_urlpatterns, path("bench/minimal/<int:campaign_id>/", minimal)]
