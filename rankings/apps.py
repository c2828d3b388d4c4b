from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "rankings"
    default_auto_field = "django.db.models.BigAutoField"
