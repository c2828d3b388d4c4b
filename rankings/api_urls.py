"""REST API routes of the rankings app (mounted under /api/); see :mod:`rankings.apis`."""

from django.urls import path

from . import apis

urlpatterns: list = [
    path(
        "rankings/<str:discipline>/players/<str:player_id>/results",
        apis.PlayerResultsAPI.as_view(),
        name="api-ranking-player-results",
    ),
    path(
        "rankings/<str:discipline>/players/<str:player_id>",
        apis.PlayerHistoryAPI.as_view(),
        name="api-ranking-player",
    ),
    path("rankings/<str:discipline>/lists", apis.ArchiveAPI.as_view(), name="api-ranking-lists"),
    path(
        "rankings/<str:discipline>/<str:month>.<str:fmt>",
        apis.DownloadAPI.as_view(),
        name="api-ranking-download",
    ),
    path(
        "rankings/<str:discipline>/<str:month>",
        apis.MonthListAPI.as_view(),
        name="api-ranking-month",
    ),
    path("rankings/<str:discipline>", apis.CurrentListAPI.as_view(), name="api-ranking-current"),
]
