"""One settings file, driven by environment variables. The defaults suit a developer's machine (`make run`);
production sets DEBUG=0, SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL (see README)."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from config.env import env_bool, env_list, env_networks
from config.outage import check_pooled

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-12plus"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
SIGNUP_OPEN = env_bool("SIGNUP_OPEN", True)
# The demo campaign and its accounts (manage.py load_demo, run by `make run`), whose passwords are in the README: for
# a developer's machine only, unless asked for.
DEMO = env_bool("DEMO", DEBUG)

# What one account may make or hold at once (README "Limits"). Reaching a cap is refused with a message that says so.
CAMPAIGNS_PER_USER = int(os.environ.get("CAMPAIGNS_PER_USER", "20"))
CHARACTERS_PER_CAMPAIGN = int(os.environ.get("CHARACTERS_PER_CAMPAIGN", "60"))
# What one campaign may hold beyond its characters, far past what a real campaign meets: the actions that make them and
# an import both stop there.
NPC_TEMPLATES_PER_CAMPAIGN = int(os.environ.get("NPC_TEMPLATES_PER_CAMPAIGN", "200"))
DISEASES_PER_CAMPAIGN = int(os.environ.get("DISEASES_PER_CAMPAIGN", "200"))  # its own, retired ones too
SESSIONS_PER_CAMPAIGN = int(os.environ.get("SESSIONS_PER_CAMPAIGN", "10000"))
# The reverse proxies whose X-Forwarded-For is believed: addresses or networks, comma-separated (config.client_address).
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")
# The addresses Prometheus may scrape /metrics from (the client's address, as config.client_address finds it).
METRICS_ALLOWED = env_networks("METRICS_ALLOWED", "127.0.0.1,::1")
STREAMS_PER_USER = int(os.environ.get("STREAMS_PER_USER", "12"))
# Seconds a process told to stop (SIGTERM) goes on answering while the balancer takes it out (play.live.stopping):
# more than two of the balancer's health checks (deploy/haproxy.cfg: every 300 ms).
DRAIN_SECONDS = float(os.environ.get("DRAIN_SECONDS", "1.5"))
# Calls one API token may make in a minute, in each server process (play.api.v1.PerToken); more answer 429.
API_CALLS_PER_MINUTE = int(os.environ.get("API_CALLS_PER_MINUTE", "240"))
# Live-stream connects Django serves at once per process; more wait their turn (config.stream_gate).
STREAM_CONNECTS_AT_ONCE = int(os.environ.get("STREAM_CONNECTS_AT_ONCE", "2"))
# In front of them (config.asgi): a stream's connect just like one whose stream its browser closed a moment ago is let
# in from memory, not through Django (a reconnect storm costs each browser no reads).
STREAM_RECONNECTS = "play.live.connects.remembered"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "servestatic.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "ninja",  # django-ninja: the API (play.api), its interactive page's files served from here
    "config.axes_app.Axes",  # django-axes (its admin section named in our words)
    "procrastinate.contrib.django",  # the task queue in PostgreSQL: the ticks of time between sessions (rules.tasks)
    "campaigns",
    "characters",
    "rules",
    "play",
]

MIDDLEWARE = [
    # first: the request's id, and its one log line (config.request_log): it sees the socket's address, to trust the
    # balancer's X-Request-ID from TRUSTED_PROXIES only
    "config.request_log.RequestLogMiddleware",
    # the client's address, which everything after it counts by (the socket's unless TRUSTED_PROXIES)
    "config.client_address.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.outage.OutageMiddleware",
    "servestatic.middleware.ServeStaticMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's LoginRequiredMiddleware, but an htmx request from a page whose session ended gets a 401, not the
    # login page drawn inside the page (config.login_required)
    "config.login_required.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # last but for the next, as django-axes asks: it turns a locked-out login into play.throttle.locked_out
    "axes.middleware.AxesMiddleware",
    # last: everything in front of it runs on the request's thread, not hopping there and back (config.one_thread)
    "config.one_thread.OneThreadMiddleware",
]
# What a live stream's connect passes through (config.stream_gate): who asks, in which language, and the 503 when the
# database is down; the rest guards forms, logins and pages. MIDDLEWARE's own entries, in its order.
STREAM_MIDDLEWARE = [
    path
    for path in MIDDLEWARE
    if path
    in {
        "config.request_log.RequestLogMiddleware",
        "config.client_address.ClientAddressMiddleware",
        "django.middleware.security.SecurityMiddleware",
        "config.outage.OutageMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.locale.LocaleMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    }
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "play.context_processors.site",
            ],
        },
    },
    {
        # What every blow draws (play/jinja2/, play.jinja): a card's state with its PG, wounds and illnesses, a log
        # and its entries, a player's companions; the fragments measured to need Jinja2's speed (bench/RESULTS.md).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"environment": "play.jinja.environment"},
    },
]

# DATABASE_URL, e.g. postgresql://user:password@host:5432/name. `make run` and `make test` set it to the embedded
# server when it is unset; the default here is this machine's PostgreSQL for a bare `manage.py`.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/twelveplus"), conn_max_age=0
    )
}
# A pooled connection is checked before each use, so one the database dropped (a restart) is replaced, not handed
# out, and every other idle one with it (config.outage.check_pooled); while the database is unreachable a request
# waits at most DB_POOL_TIMEOUT seconds and gets the 503 page (config.outage).
DATABASES["default"]["OPTIONS"] = {
    "connect_timeout": 3,
    "pool": {
        "min_size": int(os.environ.get("DB_POOL_MIN", "1")),
        "max_size": int(os.environ.get("DB_POOL_MAX", "16")),
        "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "4")),
        "check": check_pooled,
        # give up a failing reconnection soon: the next request starts a fresh one (no backoff grown to minutes)
        "reconnect_timeout": 5,
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Logins are throttled by django-axes: after LOGIN_FAILURE_LIMIT wrong passwords for one account, or
# LOGIN_ADDRESS_FAILURE_LIMIT from one client address (a table of players may share one), that account or address is
# refused for LOGIN_COOLOFF_MINUTES (a right password included; play.throttle). An admin unlocks
# at once by deleting the "Access attempts" in /admin/ or with `manage.py axes_reset_username NAME`. The client address
# is the socket's, unless TRUSTED_PROXIES names the proxies in front of the site (config.client_address): then the
# right-most address of their X-Forwarded-For that is not one of them. uvicorn itself believes no such header
# (--no-proxy-headers).
# Django's database sessions and ModelBackend, their reads compiled once (config.signed_in; a session signed in through
# ModelBackend before is read as signed in through Accounts).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "config.signed_in.Accounts"]
SESSION_ENGINE = "config.signed_in"
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "8"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
LOGIN_ADDRESS_FAILURE_LIMIT = max(AXES_FAILURE_LIMIT, int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "40")))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # play.throttle.LoginAttempts counts by each
AXES_HANDLER = "play.throttle.LoginAttempts"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "play.throttle.locked_out"
AXES_VERBOSE = False
AXES_DISABLE_ACCESS_LOG = True  # failures are what it counts; a row per successful login would only grow
# The largest request body the app reads (config.request_size): a campaign's backup (5 MB) and its form fit.
MAX_REQUEST_BYTES = int(os.environ.get("MAX_REQUEST_BYTES", str(6 * 1024 * 1024)))
# Sign-ups from one client address in one hour (SIGNUP_OPEN=0 closes sign-up altogether).
SIGNUPS_PER_HOUR = int(os.environ.get("SIGNUPS_PER_HOUR", "5"))
# The task queue's workers (`manage.py worker`, README "Running on several machines"): how many jobs one
# runs at once, and how long a stopping worker lets a job in hand finish (a tick is one transaction: one cut short is
# rolled back and runs again at the next pass).
PROCRASTINATE_WORKER_DEFAULTS = {
    "concurrency": int(os.environ.get("WORKER_CONCURRENCY", "2")),
    "shutdown_graceful_timeout": 10.0,
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Español")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic puts the files DEBUG=0 serves (a test of the production run collects into a folder of its own).
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "servestatic.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# No inline scripts or styles anywhere: htmx is served from /static and configured not to eval.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    # a player's page and a sheet are installable and kept offline (play/views/offline.py): their own origin only
    "manifest-src": [CSP.SELF],
    "worker-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# Production hardening follows DEBUG; each can be overridden (e.g. SECURE_SSL_REDIRECT=0 behind a TLS proxy that
# already redirects).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# LOG_FORMAT=json: one JSON object per line (config.request_log.JsonLines), the server's own lines too; else text.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be text or json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "config.request_log.JsonLines"}},
    "filters": {"routes": {"()": "config.request_log.RoutesNotPaths"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["routes"],
            **({"formatter": "json"} if LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # django-axes logs every login at INFO; lockouts are warnings. The task queue logs each job it runs at INFO (one
    # a minute): its warnings only, unless TASK_LOG_LEVEL says otherwise; each tick made is logged by rules.tasks.
    "loggers": {
        "axes": {"level": "WARNING"},
        "procrastinate": {"level": os.environ.get("TASK_LOG_LEVEL", "WARNING")},
        # Django's own lines through our one handler only (its default adds a plain-text one under DEBUG)
        "django": {"handlers": ["console"], "propagate": False, "level": "INFO"},
        # Each request's line (config.request_log): in the JSON logs; in text, the server's access log says as much.
        "twelveplus.requests": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"},
        # The server's own lines (uvicorn's, configured before Django is): through the same handler, in the same form;
        # but not its access lines, which name the path (an invitation's token may be in it): each request's line is
        # twelveplus.requests'.
        **(
            {
                "uvicorn": {"handlers": ["console"], "propagate": False},
                "uvicorn.error": {"handlers": ["console"], "propagate": False},
                "uvicorn.access": {"handlers": [], "propagate": False, "level": "CRITICAL"},
            }
            if LOG_FORMAT == "json"
            else {}
        ),
    },
}
