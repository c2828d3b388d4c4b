"""ASGI entry point, on the production settings unless ``DJANGO_SETTINGS_MODULE`` says otherwise."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.production")
os.environ.setdefault("FIDO_PG_PARALLEL_WORKERS", "0")  # as fido.wsgi: short statements
application = get_asgi_application()
