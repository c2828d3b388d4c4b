"""WSGI entry point (gunicorn ``fido.wsgi:application``), on the production settings unless
``DJANGO_SETTINGS_MODULE`` says otherwise (see ``fido.settings.production``); chunked request
bodies read by :mod:`fido.wsgi_body`.

After Django has loaded, the objects alive then (modules, settings, URL patterns, the
translation catalogues: most of a worker's heap) are moved out of the cyclic garbage
collector's sight with ``gc.freeze()``, and the youngest generation is collected less
often: a full collection over the whole heap cost a worker about 70 ms, a few times per
thousand requests, which was the slowest response of every page benchmark; a request
allocates a few thousand short-lived objects, which reference counting frees anyway.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application

from fido.wsgi_body import ChunkedBodyMiddleware

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.production")
# A chunked request body is read, not taken for empty (fido/wsgi_body.py).
application = ChunkedBodyMiddleware(get_wsgi_application())

gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 20)
