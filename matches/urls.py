"""Web pages of the matches app."""

from django.urls import path

app_name = "matches"
urlpatterns: list = []
