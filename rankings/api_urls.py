"""REST API routes of the rankings app (mounted under /api/); see :mod:`rankings.apis`."""

from django.urls import path

from .apis import diff, forecast, head_to_head, ledger, lists, players, projection, whatif
from .http_cache import list_cached

_ROUTES = [
    # (route under /api/, view, name); the more specific routes first.
    (
        "players/<str:player_id>/head-to-head/<str:other_id>",
        head_to_head.HeadToHeadAPI,
        "api-ranking-head-to-head",
    ),
    ("players/<str:player_id>/forecast", forecast.PlayerForecastAPI, "api-ranking-player-forecast"),
    ("players/<str:player_id>/ledger", ledger.PlayerLedgerAPI, "api-ranking-player-ledger"),
    ("players/<str:player_id>/results", players.PlayerResultsAPI, "api-ranking-player-results"),
    ("players/<str:player_id>", players.PlayerHistoryAPI, "api-ranking-player"),
    ("whatif", whatif.WhatIfAPI, "api-ranking-whatif"),
    ("lists", lists.ArchiveAPI, "api-ranking-lists"),
    ("projected", projection.ProjectedListAPI, "api-ranking-projected"),
    ("<str:month>/diff", diff.DiffAPI, "api-ranking-diff"),
    ("<str:month>.<str:fmt>", lists.DownloadAPI, "api-ranking-download"),
    ("<str:month>", lists.MonthListAPI, "api-ranking-month"),
    ("", lists.CurrentListAPI, "api-ranking-current"),
]
# The list's own responses carry an ETag and Cache-Control (rankings.http_cache).
_CACHED = {
    lists.DownloadAPI: list_cached(fmt_kwarg="fmt"),
    lists.MonthListAPI: list_cached(),
    lists.CurrentListAPI: list_cached(),
}
urlpatterns: list = [
    path(
        f"rankings/<str:discipline>/{route}".rstrip("/"),
        _CACHED[view](view.as_view()) if view in _CACHED else view.as_view(),
        name=name,
    )
    for route, view, name in _ROUTES
]
