"""Web pages of the rankings app."""

from django.urls import path

app_name = "rankings"
urlpatterns: list = []
