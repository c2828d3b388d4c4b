"""REST API routes of the matches app (mounted under /api/)."""

from django.urls import path

from matches.apis.records import RecordReplayAPI

urlpatterns: list = [
    path("records/replay", RecordReplayAPI.as_view(), name="record-replay"),
]
