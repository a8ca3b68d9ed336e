"""The words of the API's document (its operations' summaries and descriptions), translated in the language of the
request that reads it: Django's lazy translation, a promise django-ninja's JSON encoder turns into text. django-ninja
types them as `str`: so does this name, for the type checker."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:

    def gettext_lazy(message: str) -> str: ...

else:
    from django.utils.translation import gettext_lazy

__all__ = ["gettext_lazy"]
