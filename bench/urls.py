"""The project's URLs plus the bench's own views: the floor of the table GET (bench/live.py), a minimal Django view
doing one query, and the stack floor of the live updates (bench/stack_floor.py)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from bench import stack_floor
from campaigns.models import Campaign
from config.urls import urlpatterns as project_urlpatterns


def minimal(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Behind the same middleware as the table (so the session and the user are looked up too), one query of its own."""
    name = Campaign.objects.filter(pk=campaign_id).values_list("name", flat=True).first()
    return HttpResponse(f"<!doctype html><title>{name}</title><p>{name}</p>")


urlpatterns = [
    *project_urlpatterns,
    path("bench/minimal/<int:campaign_id>/", minimal),
    path("bench/stack/<int:campaign_id>/", stack_floor.change),
    path("bench/stack/<int:campaign_id>/stream/", stack_floor.stream),
]
