"""WSGI entry point (gunicorn ``fido.wsgi:application``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.base")
application = get_wsgi_application()
