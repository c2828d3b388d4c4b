"""REST API routes of the matches app (mounted under /api/)."""

from django.urls import path

from matches.apis import matches as matches_api
from matches.apis.players import PlayerSearchAPI
from matches.apis.records import RecordReplayAPI

urlpatterns: list = [
    path("records/replay", RecordReplayAPI.as_view(), name="record-replay"),
    path("auth/token", matches_api.TokenAPI.as_view(), name="api-token"),
    path("me", matches_api.MeAPI.as_view(), name="api-me"),
    path("players", PlayerSearchAPI.as_view(), name="api-players"),
    path("matches", matches_api.MatchListAPI.as_view(), name="api-matches"),
    path("matches/<int:pk>", matches_api.MatchDetailAPI.as_view(), name="api-match"),
    path(
        "matches/<int:pk>/correct",
        matches_api.MatchCorrectAPI.as_view(),
        name="api-match-correct",
    ),
    path("matches/<int:pk>/void", matches_api.MatchVoidAPI.as_view(), name="api-match-void"),
]
