import os

from django.conf import settings
from django.core.asgi import get_asgi_application

from config.request_size import limit_request_size

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = limit_request_size(get_asgi_application(), settings.MAX_REQUEST_BYTES)
