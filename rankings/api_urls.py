"""REST API routes of the rankings app (mounted under /api/)."""

urlpatterns: list = []
