from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The rules engine knows no Django: give it the active language's translator.
        from django.utils.translation import gettext, ngettext

        from matches.rules import i18n

        i18n.install(gettext, ngettext)
