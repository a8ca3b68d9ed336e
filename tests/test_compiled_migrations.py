"""A migration under a running process (issue 54): the statements each connection prepared (config.compiled) go on
working when a column is added (PostgreSQL plans them again by itself), and one that no longer fits (a column's type
changed) is prepared again and run once more; inside a transaction, which the error aborted, the error goes on and
the connection's next use prepares every statement anew."""

import pytest
from django.db import DatabaseError, connection, transaction

from characters.models import Character
from config.compiled import Compiled
from play.screens.snapshot import CAMPAIGN
from tests.helpers import World

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = Compiled(
    lambda campaign: Character.objects.filter(campaign_id=campaign).order_by("id").values_list("id", "name")
)


def altered(sql: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql)


def test_an_added_column_leaves_the_prepared_statements_working(world: World):
    assert CAMPAIGN.first(pk=world.campaign_a.pk).name == "A"
    altered("ALTER TABLE campaigns_campaign ADD COLUMN added_by_a_deploy integer NULL")
    try:
        assert CAMPAIGN.first(pk=world.campaign_a.pk).name == "A"
    finally:
        altered("ALTER TABLE campaigns_campaign DROP COLUMN added_by_a_deploy")


def test_a_statement_that_no_longer_fits_is_prepared_again(world: World):
    assert [name for _pk, name in NAMES.rows(campaign=world.campaign_a.pk)] == ["Aldara", "Borin", "Tomás"]
    altered("ALTER TABLE characters_character ALTER COLUMN name TYPE varchar(101)")
    try:
        assert [name for _pk, name in NAMES.rows(campaign=world.campaign_a.pk)] == ["Aldara", "Borin", "Tomás"]
        altered("ALTER TABLE characters_character ALTER COLUMN name TYPE varchar(102)")
        with pytest.raises(DatabaseError), transaction.atomic():  # aborted: it cannot be run again in there
            NAMES.rows(campaign=world.campaign_a.pk)
        assert len(NAMES.rows(campaign=world.campaign_a.pk)) == 3  # the next use prepared it anew
    finally:
        altered("ALTER TABLE characters_character ALTER COLUMN name TYPE varchar(100)")
