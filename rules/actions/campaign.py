"""A campaign as a whole: creating one (within the per-account cap) and deleting one with everything in it. Its
backup as one document, and restoring such a document as a new campaign, are rules.backup's."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.access import Right
from campaigns.models import Campaign
from rules import notify
from rules.actions.core import ActionError, Actor, checked_name, lock_campaign, user_of
from rules.actions.sheet import NAME_LENGTH
from rules.models import CalledCheck, Illness

logger = logging.getLogger(__name__)


def room_for_one_more(gm: User) -> None:
    """The per-account cap, under a lock on the account's row so that two creations at once cannot both pass it."""
    User.objects.select_for_update().filter(pk=gm.pk).first()
    running = Campaign.objects.filter(gm=gm).count()
    if running >= settings.CAMPAIGNS_PER_USER:
        message = _("Ya llevas %(n)s campañas, el máximo de este sitio. Borra o exporta una antes de crear otra.")
        raise ActionError(message % {"n": running})


@transaction.atomic
def create_campaign(name: str, gm: User) -> Campaign:
    """A new, empty campaign run by `gm`, at campaign second 0."""
    name = checked_name(name, NAME_LENGTH)
    room_for_one_more(gm)
    return Campaign.objects.create(name=name, gm=gm)


@transaction.atomic
def delete_campaign(campaign: Campaign | int, *, by: Actor, typed_name: str | None) -> None:
    """Delete a campaign and everything in it: its log, characters (removed ones too), wounds, illnesses, own diseases,
    players and invitation links. The GM confirms by typing its name (`typed_name`); None means the site admin
    confirmed on the admin's own page. Open screens of the campaign end their live stream."""
    campaign = lock_campaign(campaign, by, Right.OWNER)  # gone meanwhile: "Esta campaña ya no existe."
    if typed_name is not None and typed_name.strip() != campaign.name:
        raise ActionError(_("Escribe el nombre exacto de la campaña para borrarla."), "name")
    # An episode protects its disease from deletion (history points at it): the episodes go first, then the rest,
    # characters with the removed ones, by cascade.
    Illness.objects.filter(character__campaign=campaign).delete()
    CalledCheck.objects.filter(campaign=campaign).delete()  # a resistance check points at its disease too
    campaign_id, name = campaign.pk, campaign.name
    campaign.delete()
    notify.send(campaign_id, None)  # its watchers find it gone (access.still_sees) and their streams end
    logger.info("campaign %s «%s» deleted by %s", campaign_id, name, getattr(user_of(by), "username", None))
