"""Web pages of the rankings app."""

app_name = "rankings"
urlpatterns: list = []
