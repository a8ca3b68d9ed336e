import pytest

from characters.models import Character
from tests.helpers import World, reload


@pytest.fixture
def healer(world: World) -> Character:
    """Tomás, with Curar Heridas."""
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=5)
    return reload(world.npc_a)
