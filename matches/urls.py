"""Web pages of the matches app."""

from django.urls import path

from .views import records, secretary

app_name = "matches"
urlpatterns: list = [
    path("secretary/", secretary.my_submissions, name="my_submissions"),
    path("secretary/submit/", secretary.match_submit_page, name="match_submit"),
    path("secretary/upload/", secretary.csv_upload_page, name="csv_upload"),
    path("secretary/upload/template.csv", secretary.csv_template, name="csv_template"),
    path(
        "secretary/matches/<int:pk>/correct/",
        secretary.match_correct_page,
        name="match_correct",
    ),
    path("records/viewer/", records.viewer, name="record_viewer"),
    path("matches/<int:pk>/records/", records.match_records, name="match_records"),
]
