"""Every page's address. The names are unnamespaced (`home`, `campaign`, `character_edit`, `diseases`, `rules`…)."""

from django.urls import include, path, register_converter

from campaigns.models import TOKEN_PATTERN
from play import api
from play.views import (
    accounts,
    campaigns,
    characters,
    checks,
    co_gms,
    diseases,
    game_sessions,
    health,
    logs,
    offline,
    rules_page,
    running_time,
    streams,
    table,
    visits,
)


class TokenConverter:
    """An invitation's token in its link (campaigns.models.TOKEN_PATTERN)."""

    regex = TOKEN_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")

CAMPAIGN = "campaigns/<int:campaign_id>/"
CHARACTER = CAMPAIGN + "characters/<int:character_id>/"
DISEASES = CAMPAIGN + "diseases/"

urlpatterns = [
    # the balancer's health checks: no session, no login
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", health.metrics, name="metrics"),
    # the API for bots and modules (play.api): a token, no session
    path("api/v1/", include((api.urls(), "api"), namespace="api")),
    # campaigns, accounts and invitations
    path("", campaigns.home, name="home"),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/tokens/", accounts.access_tokens, name="access_tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", accounts.revoke_access_token, name="access_token_revoke"),
    path("accounts/logout/", accounts.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.signup, name="signup"),
    # a player's page and a sheet without signal: the service worker (scope: the whole site), the manifest, and which
    # kept pages the account lost
    path("sw.js", offline.service_worker, name="service_worker"),
    path("manifest.webmanifest", offline.manifest, name="manifest"),
    path("offline/kept/", offline.kept_pages, name="kept_pages"),
    path("campaigns/new/", campaigns.campaign_create, name="campaign_create"),
    path("campaigns/import/", campaigns.campaign_import, name="campaign_import"),
    path(CAMPAIGN + "export/", campaigns.campaign_export, name="campaign_export"),
    path(CAMPAIGN + "delete/", campaigns.campaign_delete, name="campaign_delete"),
    path("invite/<token:token>/", campaigns.invitation, name="invitation"),
    # co-GMs: the owner names them with a link and removes them
    path(CAMPAIGN + "co-gms/", co_gms.co_gms, name="co_gms"),
    path(CAMPAIGN + "co-gms/invite/", co_gms.co_gm_invite, name="co_gm_invite"),
    path(CAMPAIGN + "co-gms/links/<int:invitation_id>/revoke/", co_gms.co_gm_revoke, name="co_gm_revoke"),
    path(CAMPAIGN + "co-gms/<int:user_id>/remove/", co_gms.co_gm_remove, name="co_gm_remove"),
    # character sheets
    path(CAMPAIGN + "characters/new/", characters.character_create, name="character_create"),
    path(CAMPAIGN + "characters/several/", characters.characters_add_several, name="characters_add_several"),
    path(CAMPAIGN + "templates/<int:template_id>/delete/", characters.template_delete, name="template_delete"),
    path(CAMPAIGN + "characters/remove/", characters.characters_remove_several, name="characters_remove_several"),
    path(CHARACTER + "edit/", characters.character_edit, name="character_edit"),
    path(CHARACTER + "delete/", characters.character_delete, name="character_delete"),
    # the rules and the campaign's diseases
    path("rules/", rules_page.rules_page, name="rules"),
    path(DISEASES, diseases.disease_list, name="diseases"),
    path(DISEASES + "new/", diseases.disease_create, name="disease_create"),
    path(DISEASES + "<int:disease_id>/edit/", diseases.disease_edit, name="disease_edit"),
    path(DISEASES + "<int:disease_id>/retire/", diseases.disease_retire, name="disease_retire"),
    # the table, the players' pages and sheets, and the table's actions
    path(CAMPAIGN, table.campaign, name="campaign"),
    path(CAMPAIGN + "stream/", streams.campaign_stream, name="campaign_stream"),
    path(CHARACTER, table.character, name="character"),
    path(CAMPAIGN + "log/", logs.campaign_log, name="campaign_log"),
    path(CHARACTER + "log/", logs.character_log, name="character_log"),
    path(CAMPAIGN + "act/damage/", table.damage, name="damage"),
    path(CAMPAIGN + "act/expose/", table.expose, name="expose"),
    path(CAMPAIGN + "act/advance/", table.advance, name="advance"),
    path(CAMPAIGN + "act/treat_wounds/", table.treat_wounds, name="treat_wounds"),
    path(CAMPAIGN + "act/treat_illness/", table.treat_illness, name="treat_illness"),
    path(CAMPAIGN + "act/medicate/", table.medicate, name="medicate"),
    path(CAMPAIGN + "act/exertion/", table.exertion, name="exertion"),
    path(CAMPAIGN + "act/answer_check/", checks.answer_check, name="answer_check"),
    path(CAMPAIGN + "act/cancel_check/", checks.cancel_check, name="cancel_check"),
    path(CAMPAIGN + "act/close/", table.close_form, name="close_form"),
    path(CAMPAIGN + "party-view/", table.party_view, name="party_view"),
    path(CAMPAIGN + "running-time/", running_time.running_time, name="running_time"),
    path(CAMPAIGN + "running-time/preview/", running_time.preview, name="tick_preview"),
    path(CAMPAIGN + "undo/", table.undo, name="undo"),
    path(CAMPAIGN + "seen/", visits.dismiss_visit, name="visit_dismiss"),
    # game sessions and their recaps
    path(CAMPAIGN + "act/session/", game_sessions.game_session, name="game_session"),
    path(CAMPAIGN + "sessions/", game_sessions.sessions, name="sessions"),
    path(CAMPAIGN + "sessions/<int:number>/", game_sessions.recap, name="session_recap"),
    path(CAMPAIGN + "sessions/<int:number>/share/", game_sessions.recap_share, name="recap_share"),
    path(CHARACTER + "invite/", table.invite, name="character_invite"),
    path(CAMPAIGN + "invitations/<int:invitation_id>/revoke/", table.revoke_invitation, name="invitation_revoke"),
]
