"""REST API routes of the matches app (mounted under /api/)."""

from django.urls import path

urlpatterns: list = []
