"""config.compiled: every compiled query of the project gives what the ORM gives for the same values, run after run,
on any thread's connection; what it refuses it refuses as the ORM does; each is prepared once per connection."""

import re
import threading
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.db import DataError, connection, connections, transaction
from django.db.models import F, Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

# Every module that compiles a query, imported so that each is in Compiled.made.
import campaigns.access
import config.signed_in
import play.forms.base
import play.screens.cards
import play.screens.snapshot
import rules.actions.core
import rules.queries
from characters.models import Character
from config import prepared
from config.compiled import Compiled, Making
from config.compiled import together as compiled_together
from config.written import in_one_trip
from rules import actions, mapping
from rules.actions import Call
from rules.damage import Attack
from rules.models import CheckKind
from tests.helpers import World, make_user

# The names of a campaign's characters, for the reads after writes.
NAMES = Compiled(
    lambda campaign: Character.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True)
)


def state(row: Any) -> Any:
    """What a row holds, and what it holds of the rows read with it (select_related), and how it was read."""
    if not isinstance(row, Model):
        return row
    fields = {name: value for name, value in row.__dict__.items() if name != "_state"}
    related = {name: state(value) for name, value in row._state.fields_cache.items()}
    return type(row), fields, related, (row._state.adding, row._state.db, row._state.fetch_mode)


def values_for(query: Compiled[Any], world: World, campaign: Any, user: Any) -> dict[str, Any]:
    """Values for each slot, by its name."""
    characters = [c.pk for c in (world.char_a1, world.char_a2, world.npc_a) if c.campaign_id == campaign.pk]
    known = {
        "campaign": campaign.pk,
        "user": user.pk,
        "pk": user.pk,
        "characters": characters or [world.char_b.pk],
        "key": "nosuchsession",
        "now": timezone.now(),
    }
    return {name: known[name] for name in query.names}


def busy(world: World) -> None:
    """Rows of every kind the compiled queries read: wounds, an illness, a pending check, log entries."""
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=3), by=world.gm_a)
    actions.apply_damage(world.campaign_b, [world.char_b], Attack(amount=1), by=world.gm_b)
    actions.call_check(world.campaign_a, [world.char_a1], Call(CheckKind.FALL, height_m=10), by=world.gm_a)


@pytest.mark.django_db(transaction=True)
def test_each_compiled_query_gives_what_the_orm_gives(world: World) -> None:
    busy(world)
    hot = [config.signed_in.SESSION, config.signed_in.ACCOUNT, campaigns.access.CAMPAIGN_SEEN, play.forms.base.IN_PLAY]
    hot += [
        rules.actions.core.LOCKED,
        play.screens.snapshot.WOUNDS,
        play.screens.snapshot.LATEST_HEADS,
        rules.queries.PENDING,
    ]
    assert set(hot) <= set(Compiled.made)
    for _round in range(2):  # the first run compiles, the second runs what was compiled
        for campaign, user in [
            (world.campaign_a, world.gm_a),
            (world.campaign_b, world.gm_b),
            (world.campaign_a, world.player_a),
        ]:
            for query in Compiled.made:
                values = values_for(query, world, campaign, user)
                with transaction.atomic():  # the locking reads run in one, as in an action
                    with CaptureQueriesContext(connection) as ran:
                        compiled = query.list(**values)
                    expected = list(query.build(**values))
                assert len(ran) == 1
                assert [state(row) for row in compiled] == [state(row) for row in expected], query.build


@pytest.mark.django_db(transaction=True)
def test_a_compiled_query_runs_on_the_calling_threads_connection(world: World) -> None:
    busy(world)
    query = campaigns.access.ROSTER
    names = [c.name for c in query.list(campaign=world.campaign_a.pk)]  # compiled on this thread
    found: list[Any] = []

    def other() -> None:
        try:
            found.append(([c.name for c in query.list(campaign=world.campaign_a.pk)], id(connections["default"])))
        finally:
            connections["default"].close()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert found[0][0] == names
    assert found[0][1] != id(connections["default"])


@pytest.mark.django_db(transaction=True)
def test_a_locking_read_outside_a_transaction_is_refused_as_by_the_orm(world: World) -> None:
    with transaction.atomic():
        rules.actions.core.LOCKED.first(campaign=world.campaign_a.pk)
    with pytest.raises(transaction.TransactionManagementError):
        rules.actions.core.LOCKED.first(campaign=world.campaign_a.pk)


@pytest.mark.django_db
def test_a_shape_it_does_not_make_is_refused(world: World) -> None:
    for queryset in (Character.objects.values("name"), Character.objects.prefetch_related("wounds")):
        compiler = queryset.query.get_compiler(using=queryset.db)
        compiler.as_sql()
        with pytest.raises(TypeError):
            Making(queryset, compiler)


@pytest.mark.django_db
def test_every_slot_takes_a_value_and_nothing_else(world: World) -> None:
    with pytest.raises(TypeError):
        campaigns.access.ROSTER.list()
    with pytest.raises(TypeError):
        campaigns.access.ROSTER.list(campaign=1, user=2)


@pytest.mark.django_db
def test_a_list_goes_in_as_one_array_whatever_its_length(world: World) -> None:
    busy(world)
    query = play.screens.snapshot.WOUNDS
    for chosen in (
        [],
        [world.char_a1.pk],
        [world.char_a1.pk, world.char_a2.pk, world.char_b.pk, 10**12, 2**63, -(2**70)],
    ):
        with CaptureQueriesContext(connection) as ran:
            rows = query.rows(characters=chosen)
        assert len(ran) == 1
        assert sorted({row[play.screens.cards.WOUND_CHARACTER] for row in rows}) == sorted(
            {pk for pk in chosen if pk in (world.char_a1.pk, world.char_a2.pk, world.char_b.pk)}
        )


@pytest.mark.django_db
def test_an_account_and_its_session_are_read_as_django_reads_them(client: Any) -> None:
    user = make_user("someone")
    client.force_login(user)
    assert client.get("/").wsgi_request.user == user
    Session.objects.update(expire_date=timezone.now())  # expired: nobody signed in
    assert not client.get("/").wsgi_request.user.is_authenticated
    client.force_login(user)
    user.is_active = False
    user.save()
    assert not client.get("/").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_a_session_signed_in_before_accounts_replaced_modelbackend_stays_signed_in(client: Any) -> None:
    user = make_user("veteran")
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")  # as sessions made before it
    assert client.get("/").wsgi_request.user == user


@pytest.mark.django_db(transaction=True)
def test_queries_read_together_give_what_each_gives_alone_in_one_round_trip(world: World) -> None:
    busy(world)
    odd = "x'; DELETE FROM django_session; --%s%%"  # a value is a value, whatever it holds
    reads = [
        (config.signed_in.SESSION, {"key": odd, "now": timezone.now()}),
        (campaigns.access.ROSTER, {"campaign": world.campaign_a.pk}),
        (play.screens.snapshot.WOUNDS, {"characters": []}),  # nothing found in the middle of the run
        (play.screens.snapshot.LATEST_HEADS, {"campaign": world.campaign_b.pk}),
        (campaigns.access.ROSTER, {"campaign": world.campaign_b.pk}),
    ]
    with CaptureQueriesContext(connection) as ran:
        together = compiled_together(*reads)
    assert len(ran) == 1
    for (query, values), rows in zip(reads, together, strict=True):
        assert [state(row) for row in rows] == [state(row) for row in query.build(**values)]


def prepared_here() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements")
        return {name for (name,) in cursor.fetchall()}


# Fixed values of every awkward kind written into the prepared statement: a quote, a percent sign in the SQL itself
# (`contains` against a column is LIKE '%%' || … || '%%'), and one slot used twice.
AWKWARD = Compiled(
    lambda campaign: (
        Character.objects.filter(campaign_id=campaign, name__contains=F("name"))
        .exclude(name="o'k 50%")
        .exclude(pk=campaign)
        .order_by("id")
    )
)


@pytest.mark.django_db(transaction=True)
def test_a_compiled_query_is_prepared_once_per_connection_and_then_only_executed(world: World) -> None:
    expected = list(AWKWARD.build(campaign=world.campaign_a.pk))
    assert expected
    for _run in range(3):
        with CaptureQueriesContext(connection) as ran:
            assert AWKWARD.list(campaign=world.campaign_a.pk) == expected
        assert [q["sql"] for q in ran] == [f"EXECUTE {AWKWARD.name}({world.campaign_a.pk})"]
        assert AWKWARD.name in prepared_here()
    found: list[Any] = []
    held = connection.connection

    def other() -> None:  # another connection of the pool (this thread holds its own): prepared there too
        try:
            found.append((AWKWARD.list(campaign=world.campaign_a.pk), AWKWARD.name in prepared_here()))
            found.append(connection.connection is not held)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert found == [(expected, True), True]


@pytest.mark.django_db(transaction=True)
def test_a_connection_new_to_the_pool_is_given_every_known_statement_in_one_round_trip(world: World) -> None:
    """The statements this process has prepared come to a new connection all at once, at its first use, not one round
    trip each as its first requests meet them: a damage then runs on it as on a connection long in the pool."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=1), by=world.gm_a)
    AWKWARD.list(campaign=world.campaign_a.pk)
    assert {AWKWARD.name, "written_0"} <= set(prepared.KNOWN)
    raw = connection.connection
    raw.execute("DEALLOCATE ALL")  # as a new connection has them: none
    prepared.PREPARED.pop(raw)
    sent: list[str] = []
    real = type(raw).execute

    def recorded(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:  # what goes to PostgreSQL outside Django
        if self is raw:
            sent.append(str(query))
        return real(self, query, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(raw), "execute", recorded)
        assert AWKWARD.list(campaign=world.campaign_a.pk)
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=1), by=world.gm_a)
    preparing = [query for query in sent if "PREPARE" in query]
    assert len(preparing) == 1 and preparing[0].count("PREPARE") == len(prepared.KNOWN)
    assert set(prepared.KNOWN) <= prepared_here()


@pytest.mark.django_db(transaction=True)
def test_a_prepared_statement_outlives_a_rolled_back_or_failed_transaction(world: World) -> None:
    expected = list(AWKWARD.build(campaign=world.campaign_a.pk))
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        assert AWKWARD.list(campaign=world.campaign_a.pk) == expected  # prepared in the transaction
        raise ZeroDivisionError
    assert AWKWARD.list(campaign=world.campaign_a.pk) == expected
    with pytest.raises(transaction.TransactionManagementError), transaction.atomic():
        with pytest.raises(DataError), transaction.atomic(savepoint=False):
            connection.cursor().execute("SELECT 1/0")
        AWKWARD.list(campaign=world.campaign_b.pk)  # refused as any query is in a broken transaction
    assert AWKWARD.list(campaign=world.campaign_a.pk) == expected


@pytest.mark.django_db
def test_a_number_no_row_can_hold_finds_nothing_as_with_the_orm(world: World) -> None:
    busy(world)
    for huge in (2**63, -(2**63) - 1, 10**30):
        assert AWKWARD.list(campaign=huge) == list(AWKWARD.build(campaign=huge)) == []
        assert campaigns.access.CAMPAIGN_SEEN.first(user=world.gm_a.pk, campaign=huge) is None
    assert AWKWARD.list(campaign=world.campaign_a.pk) == list(AWKWARD.build(campaign=world.campaign_a.pk))


@pytest.mark.django_db
def test_an_actions_writes_go_as_prepared_statements_each_prepared_once_per_connection(world: World) -> None:
    """The writes of rules.mapping, sent in one round trip (config.written.in_one_trip), are each the EXECUTE of a
    statement prepared on the connection the first time it went there: a damage that writes what the one before did
    prepares nothing (the first blow adds a wound, the next ones lengthen its run)."""
    target = world.char_a1
    for blow in range(3):
        prepared_before = prepared_here()
        with CaptureQueriesContext(connection) as ran:
            actions.apply_damage(world.campaign_a, [target], Attack(amount=3), by=world.gm_a)
        [trip] = [q["sql"] for q in ran if "written_" in q["sql"]]
        assert "UPDATE" not in trip and "INSERT" not in trip and trip.count("EXECUTE written_") >= 3
        assert set(re.findall(r"written_\d+", trip)) <= prepared_here()
        if blow == 2:
            assert prepared_here() == prepared_before
        target.refresh_from_db()
        assert target.pg == target.max_pg - 3 * (blow + 1)
    assert world.campaign_a.events.count() == 3


@pytest.mark.django_db
def test_writes_in_one_round_trip_give_the_last_ones_rows(world: World) -> None:
    """config.written.in_one_trip: the writes in one round trip of the same transaction, the last statement's rows
    given back; a read after them sees the writes."""
    target = world.char_a1
    statement = mapping.update_statement([Character(pk=target.pk, name="Renamed")], ["name"])
    returning = ("SELECT %s::int", [7])
    with CaptureQueriesContext(connection) as ran:
        returned = in_one_trip([statement, returning])
    assert len(ran) == 1 and returned == [(7,)]
    names = NAMES.list(campaign=world.campaign_a.pk)
    assert "Renamed" in names and names == list(NAMES.build(campaign=world.campaign_a.pk))
