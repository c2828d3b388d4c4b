"""Root URL configuration: pages, the REST API under ``/api/``, schema and health."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import health, views

# INSTALLED_APPS has SimpleAdminConfig: the apps' admin modules register here, when the
# URLs load, not at every process's start-up.
admin.autodiscover()

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page links: send them to the static icon.
    path("favicon.ico", views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("matches.api_urls")),
    path("api/", include("rankings.api_urls")),
    path("", include("matches.urls")),
    path("", include("rankings.urls")),
]

# The site's own error pages (fido/errors.py): styled, in the visitor's language.
handler400 = "fido.errors.bad_request"
handler403 = "fido.errors.permission_denied"
handler404 = "fido.errors.page_not_found"
handler500 = "fido.errors.server_error"
