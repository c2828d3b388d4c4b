"""WSGI entry point (gunicorn ``fido.wsgi:application``), on the production settings unless
``DJANGO_SETTINGS_MODULE`` says otherwise (see ``fido.settings.production``); chunked request
bodies read by :mod:`fido.wsgi_body`; PostgreSQL's parallel query off for the web's
sessions unless ``FIDO_PG_PARALLEL_WORKERS`` says otherwise: a page's statements read a
few thousand rows at most, and on them starting parallel workers cost more than it saved
(docs/performance.md).

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
# A page's statements are short: no parallel workers for them (fido.settings.base).
os.environ.setdefault("FIDO_PG_PARALLEL_WORKERS", "0")
# A chunked request body is read, not taken for empty (fido/wsgi_body.py).
application = ChunkedBodyMiddleware(get_wsgi_application())

gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 20)
