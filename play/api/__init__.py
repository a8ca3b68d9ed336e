"""The JSON API for bots and modules (issue 53), under /api/v1/: typed (django-ninja, pydantic), its OpenAPI document
derived from the schemas (`/api/v1/openapi.json`) and an interactive page served from this site (`/api/v1/docs`).

A call carries a personal access token (`Authorization: Bearer 12p_…`, campaigns.models.AccessToken): it acts as its
account, with exactly that account's rights (campaigns.access, nothing written again), no session and no CSRF. A
refusal is `application/problem+json` (RFC 9457).
"""
