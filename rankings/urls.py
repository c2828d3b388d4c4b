"""Web pages of the rankings app."""

from django.urls import path

from . import views_dashboard

app_name = "rankings"
urlpatterns: list = [
    # The federation admin's cycle dashboard (staff only).
    path("dashboard/", views_dashboard.dashboard, name="dashboard"),
    path("dashboard/close/", views_dashboard.close_month, name="dashboard_close"),
    path("dashboard/runs/<int:pk>.json", views_dashboard.run_status, name="run_status"),
]
