"""Web pages of the rankings app: the public site (no login; its CSV and JSON downloads are
the API's, see api_urls.py) and the federation admin's cycle dashboard (staff only)."""

from collections.abc import Callable
from typing import Any

from django.urls import path

from .feeds import NewListsFeed
from .http_cache import list_cached, publications_cached
from .player_feed import PlayerRankFeed
from .views import calendar, dashboard, diff, head_to_head, public, review, whatif

app_name = "rankings"
_ROUTES: list[tuple[str, Callable[..., Any], str]] = [
    # (route, view, name); templates and tests reverse the names.
    # A published list's pages carry an ETag and Cache-Control (rankings.http_cache).
    ("ranking/<str:discipline>/", list_cached(page=True)(public.ranking), "ranking"),
    # The projection changes every night: never cached (no list_cached).
    ("ranking/<str:discipline>/projected/", public.ranking_projected, "ranking_projected"),
    # What-if: computed per request from the projection, writes nothing, never cached.
    ("ranking/<str:discipline>/whatif/", whatif.calculator, "whatif"),
    (
        "ranking/<str:discipline>/<str:month>/",
        list_cached(page=True)(public.ranking),
        "ranking_month",
    ),
    (
        "ranking/<str:discipline>/<str:month>/v<int:version>/",
        list_cached(page=True)(public.ranking),
        "ranking_version",
    ),
    ("ranking/<str:discipline>/<str:month>/diff/", diff.list_changes, "ranking_diff"),
    ("players/<str:player_id>/", public.player, "player"),
    ("players/<str:player_id>/badge.svg", public.player_badge, "player_badge"),
    # A feed changes only at a publication: an ETag from the newest list version.
    ("players/<str:player_id>/feed.atom", publications_cached(PlayerRankFeed()), "feed_player"),
    ("players/<str:player_id>/versus/", head_to_head.versus_form, "head_to_head_form"),
    ("players/<str:player_id>/versus/<str:other_id>/", head_to_head.versus, "head_to_head"),
    ("clubs/", public.clubs, "clubs"),
    ("clubs/<str:club_id>/", public.club, "club"),
    ("archive/", public.archive, "archive"),
    ("feeds/lists.atom", publications_cached(NewListsFeed()), "feed_lists"),
    ("calendar.ics", calendar.cycle_calendar, "calendar"),
    ("dashboard/", dashboard.dashboard, "dashboard"),
    ("dashboard/close/", dashboard.month_close, "dashboard_close"),
    ("dashboard/runs/<int:pk>.json", dashboard.run_status, "run_status"),
    ("dashboard/projection/", dashboard.projection_refresh, "dashboard_projection"),
    ("dashboard/hold/", dashboard.hold_view, "dashboard_hold"),
    ("dashboard/erratum/", dashboard.erratum_view, "dashboard_erratum"),
    ("dashboard/review/<str:discipline>/", review.review, "dashboard_review"),
    (
        "dashboard/projections/<int:pk>.json",
        dashboard.projection_status,
        "projection_status",
    ),
]
urlpatterns: list = [path(route, view, name=name) for route, view, name in _ROUTES]
