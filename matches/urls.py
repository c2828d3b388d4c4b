"""Web pages of the matches app."""

app_name = "matches"
urlpatterns: list = []
