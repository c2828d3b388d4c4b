"""Web pages of the rankings app."""

from django.urls import path

from . import views, views_dashboard
from .feeds import NewListsFeed

app_name = "rankings"
urlpatterns: list = [
    # The public site (no login); its CSV and JSON downloads are the API's (api_urls.py).
    path("ranking/<str:discipline>/", views.ranking, name="ranking"),
    path("ranking/<str:discipline>/<str:month>/", views.ranking, name="ranking_month"),
    path("players/<str:player_id>/", views.player, name="player"),
    path("players/<str:player_id>/badge.svg", views.player_badge, name="player_badge"),
    path("clubs/", views.clubs, name="clubs"),
    path("clubs/<str:club_id>/", views.club, name="club"),
    path("archive/", views.archive, name="archive"),
    path("feeds/lists.atom", NewListsFeed(), name="feed_lists"),
    # The federation admin's cycle dashboard (staff only).
    path("dashboard/", views_dashboard.dashboard, name="dashboard"),
    path("dashboard/close/", views_dashboard.close_month, name="dashboard_close"),
    path("dashboard/runs/<int:pk>.json", views_dashboard.run_status, name="run_status"),
]
