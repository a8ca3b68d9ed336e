from django.urls import path

from play import check_views, live, views

CAMPAIGN = "campaigns/<int:campaign_id>/"

urlpatterns = [
    path(CAMPAIGN, views.campaign, name="campaign"),
    path(CAMPAIGN + "stream/", live.campaign_stream, name="campaign_stream"),
    path(CAMPAIGN + "characters/<int:character_id>/", views.character, name="character"),
    path(CAMPAIGN + "log/", views.campaign_log, name="campaign_log"),
    path(CAMPAIGN + "characters/<int:character_id>/log/", views.character_log, name="character_log"),
    path(CAMPAIGN + "act/damage/", views.damage, name="damage"),
    path(CAMPAIGN + "act/expose/", views.expose, name="expose"),
    path(CAMPAIGN + "act/advance/", views.advance, name="advance"),
    path(CAMPAIGN + "act/treat_wounds/", views.treat_wounds, name="treat_wounds"),
    path(CAMPAIGN + "act/treat_illness/", views.treat_illness, name="treat_illness"),
    path(CAMPAIGN + "act/medicate/", views.medicate, name="medicate"),
    path(CAMPAIGN + "act/exertion/", views.exertion, name="exertion"),
    path(CAMPAIGN + "act/answer_check/", check_views.answer_check, name="answer_check"),
    path(CAMPAIGN + "act/cancel_check/", check_views.cancel_check, name="cancel_check"),
    path(CAMPAIGN + "act/close/", views.close_form, name="close_form"),
    path(CAMPAIGN + "party-view/", views.party_view, name="party_view"),
    path(CAMPAIGN + "undo/", views.undo, name="undo"),
    path(CAMPAIGN + "characters/<int:character_id>/invite/", views.invite, name="character_invite"),
    path(CAMPAIGN + "invitations/<int:invitation_id>/revoke/", views.revoke_invitation, name="invitation_revoke"),
]
