"""One voice (issue 24): every message a user sees is the app's informal Spanish ("tú") or plain English.

Django's own words (form errors, the password rules, the login and sign-up forms, the admin's messages) come from its
catalogue, which speaks formal Spanish; ours overrides them (config/django_words.py). This renders every form's
errors, help texts and labels, the password rules, the account pages and the admin's add / change / delete messages
in both languages, and fails on a "usted" form, a known misspelling or Spanish left in the English pages.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator
from functools import partial

import pytest
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm, AdminPasswordChangeForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm
from django.contrib.auth.password_validation import password_validators_help_texts, validate_password
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from django.utils import translation
from django.utils.html import strip_tags
from django.utils.translation import gettext, ngettext

import play.forms
from characters.models import Character
from config import django_words
from rules.models import CalledCheck, Disease
from tests.helpers import World

# The formal "usted" Spanish that Django's catalogue speaks (and ours must not), and its known slips.
USTED = re.compile(
    r"\b(?:ustedes|usted|asegúrese|introduzca|introduza|ingrese|escoja|seleccione|elija|corrija|envíe|compruebe|"
    r"observe|verifique|intente|vaya|inicie sesión|desmarque|su contraseña|sus credenciales|su cuenta|su navegador|"
    r"su información|puede (?:editarlo|agregar|volverlo|continuar)|está seguro|olvidó|desea|ha olvidado|haga clic)\b",
    re.IGNORECASE,
)
MISSPELLED = re.compile(r"carácteres|carácter\(es\)|\bcaracter\b|\bel enfermedad\b|\bfué\b", re.IGNORECASE)
# Spanish in an English page: the marks only Spanish uses (names typed by people are kept out of what is checked).
SPANISH = re.compile(r"[áéíóúñ¿¡]", re.IGNORECASE)

BAD_VALUES = ["", "x" * 5000, "-1", "abc", "9" * 30, "١", "0"]
LANGUAGES = ["es", "en"]


def faults(language: str, texts: list[str]) -> list[str]:
    found = []
    for said in texts:
        text = said.replace("español", "")  # the language switcher names each language in itself
        if USTED.search(text) or MISSPELLED.search(text) or (language == "en" and SPANISH.search(text)):
            found.append(said)
    return found


# --- every form of the app, and Django's account forms ----------------------------------------------------------------


def app_form_classes() -> list[type[forms.BaseForm]]:
    """Every form class of play/forms that is used as it is (not a base of another)."""
    found: set[type[forms.BaseForm]] = set()
    for module_info in pkgutil.iter_modules(play.forms.__path__):
        module = importlib.import_module(f"play.forms.{module_info.name}")
        for _name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, forms.BaseForm) and value.__module__ == module.__name__:
                found.add(value)
    bases = {base for cls in found for base in cls.__mro__[1:]}
    return sorted(found - bases, key=lambda cls: cls.__qualname__)


def keyword_arguments(cls: type, pool: dict[str, object]) -> dict[str, object]:
    names = set()
    for klass in cls.__mro__:
        if (init := klass.__dict__.get("__init__")) is not None:
            parameters = inspect.signature(init).parameters.values()
            names |= {p.name for p in parameters if p.kind != inspect.Parameter.VAR_KEYWORD}
    return {name: pool[name] for name in names if name in pool}


type Build = Callable[[dict[str, object] | None, dict[str, object] | None], forms.BaseForm]


def every_form(world: World) -> list[Build]:
    """How to build each form, bound (to data and files) or not: the app's, and Django's account forms."""
    user = world.player_a
    request = RequestFactory().post("/accounts/login/")
    pool: dict[str, object] = {
        "campaign": world.campaign_a,
        "patient": world.char_a1,
        "checks": CalledCheck.objects.filter(campaign=world.campaign_a),
        "answerable": {world.char_a1.pk},
        "request": request,  # the login form's: django-axes counts the attempts by it
        "user": user,  # an API token's account (play.forms.accounts.TokenForm)
    }
    builds: list[Build] = [partial(build, cls, keyword_arguments(cls, pool)) for cls in app_form_classes()]
    builds += [
        # Names short enough for django-axes's log of attempts (the admin's login form does not check their length).
        lambda data, files: AdminAuthenticationForm(request, data and {k: str(v)[:100] for k, v in data.items()}),
        lambda data, files: PasswordChangeForm(user, data),
        lambda data, files: SetPasswordForm(user, data),
        lambda data, files: AdminPasswordChangeForm(user, data),
    ]
    return builds


def build(cls: type[forms.BaseForm], kwargs: dict[str, object], data: object, files: object) -> forms.BaseForm:
    return cls(data=data, files=files, **kwargs)


def form_texts(build: Build) -> Iterator[str]:
    """What a form can say: its labels and help texts, and the errors it gives to each bad value."""
    form = build(None, None)
    for field in form.fields.values():
        yield str(field.label or "")
        yield str(field.help_text or "")
    for message in getattr(form, "error_messages", {}).values():
        yield str(message)
    for value in BAD_VALUES:
        data = dict.fromkeys(form.fields, value)
        files = {name: empty_file() for name, field in form.fields.items() if isinstance(field, forms.FileField)}
        bound = build(data, files)
        bound.is_valid()
        for messages in bound.errors.values():
            yield from messages


def empty_file() -> SimpleUploadedFile:
    return SimpleUploadedFile("copia.json", b"")


def test_every_form_of_the_app_is_covered():
    names = {cls.__name__ for cls in app_form_classes()}
    assert {"LoginForm", "SignupForm", "DiseaseForm", "AdvanceForm", "CampaignImportForm", "CheckAnswerForm"} <= names


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_form_speaks_in_our_voice(world: World, language):
    Character.objects.filter(pk=world.npc_a.pk).update(name="Tomas")  # names people type are not what is checked
    with translation.override(language):
        texts = [text for build in every_form(world) for text in form_texts(build) if text]
        texts += [str(text) for text in password_validators_help_texts()]
        for password in ["1", "12345678", "password", "player_a", "player_a1"]:
            try:
                validate_password(password, world.player_a)
            except ValidationError as error:
                texts += error.messages
    assert len(texts) > 100
    assert faults(language, texts) == []
    said = " ".join(texts)
    if language == "es":  # the messages the issue found, now ours
        assert "Asegúrate de que este valor sea menor o igual a" in said
        assert "Escribe como mucho 80 caracteres (tiene 5000)." in said
        assert "Tu contraseña no puede tener solo números." in said


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_django_word_we_list_reads_in_our_voice(language):
    """Each of Django's messages that config/django_words.py lists has our wording in Spanish (not Django's)."""
    with translation.override(language):
        listed = django_words.WORDS + django_words.AXES_WORDS
        texts = [gettext(msgid) for msgid in listed]
        # A lazy plural keeps what it was made from (its two forms) in _kw.
        plurals = [(p._kw["singular"], p._kw["plural"]) for p in django_words.PLURAL_WORDS]
        texts += [ngettext(singular, plural, n) for singular, plural in plurals for n in (1, 2)]
        if language == "es":
            untranslated = [msgid for msgid, text in zip(listed, texts, strict=False) if text == msgid]
            assert untranslated == []
    assert faults(language, texts) == []


# --- the account pages ------------------------------------------------------------------------------------------------


def page_text(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    return " ".join(strip_tags(html).split())


def client_in(language: str) -> Client:
    return Client(headers={"accept-language": language})


@pytest.mark.parametrize("language", LANGUAGES)
def test_login_and_sign_up_speak_in_our_voice(db, language):
    client = client_in(language)
    pages = [
        client.get("/accounts/signup/"),
        client.post("/accounts/signup/", {"username": "ana", "password1": "123", "password2": "456"}),
        client.post("/accounts/signup/", {"username": "a" * 200, "password1": "ana", "password2": "ana"}),
        client.post("/accounts/login/", {"username": "nadie", "password": "mal"}),
    ]
    texts = [page_text(page) for page in pages]
    assert faults(language, texts) == []
    if language == "es":
        assert "Como mucho 150 caracteres" in texts[0] and "Escribe un nombre de usuario y una contraseña" in texts[3]


# --- the admin's messages ---------------------------------------------------------------------------------------------


@pytest.fixture
def admin_user(db):
    return get_user_model().objects.create_superuser("root", password="pw")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_admin_says_what_it_did_in_our_voice(admin_user, language):
    client = client_in(language)
    client.force_login(admin_user)
    add = "/admin/rules/disease/add/"
    disease = {"name": "Viruela", "category": "serious", "penalty": "-3", "pg_per_week": "1"}
    said = []
    for data in (
        {**disease, "_continue": "1"},
        {**disease, "name": "Sarampion", "_addanother": "1"},
        disease | {"name": "Lepra"},
    ):
        response = client.post(add, data, follow=True)
        said += [strip_tags(str(message)) for message in response.context["messages"]]
    refused = client.post(add, {**disease, "name": "", "penalty": "5"})
    said.append(page_text(refused))
    viruela = Disease.objects.get(name="Viruela")
    change = f"/admin/rules/disease/{viruela.pk}/change/"
    for extra in ({"_continue": "1"}, {"_addanother": "1"}, {}):
        response = client.post(change, {**disease, **extra}, follow=True)
        said += [strip_tags(str(message)) for message in response.context["messages"]]
    lepra = Disease.objects.get(name="Lepra")
    said.append(page_text(client.get(f"/admin/rules/disease/{lepra.pk}/delete/")))
    response = client.post(f"/admin/rules/disease/{lepra.pk}/delete/", {"post": "yes"}, follow=True)
    said += [strip_tags(str(message)) for message in response.context["messages"]]
    response = client.get("/admin/rules/disease/999999/change/", follow=True)
    said += [strip_tags(str(message)) for message in response.context["messages"]]
    said.append(page_text(client.get("/admin/password_change/")))
    assert faults(language, [text for text in said if "Viruela" not in text and "Sarampion" not in text]) == []
    assert faults(language, [text.replace("Viruela", "").replace("Sarampion", "") for text in said]) == []
    joined = " ".join(said)
    if language == "es":
        assert "Se ha añadido «Viruela» (enfermedad)." in joined and "El enfermedad" not in joined
        assert "Se ha borrado «Lepra» (enfermedad)." in joined
    else:
        assert "The illness “Viruela” was added successfully." in joined


def test_the_admins_access_attempts_read_in_spanish(admin_user):
    """django-axes ships no Spanish: its section, its list and its columns are ours (config/django_words.AXES_WORDS)."""
    client = client_in("es")
    client.force_login(admin_user)
    index = page_text(client.get("/admin/"))
    assert "Accesos al sitio" in index and "Intentos de acceso" in index
    assert "Access attempts" not in index and "Axes" not in index
    attempts = page_text(client.get("/admin/axes/accessattempt/"))
    assert "Hora del intento" in attempts and "Attempt Time" not in attempts
    in_english = client_in("en")
    in_english.force_login(admin_user)
    assert "Access attempts" in page_text(in_english.get("/admin/"))
