"""REST API routes of the rankings app (mounted under /api/)."""

from django.urls import path

urlpatterns: list = []
