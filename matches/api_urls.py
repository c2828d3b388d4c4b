"""REST API routes of the matches app (mounted under /api/)."""

urlpatterns: list = []
