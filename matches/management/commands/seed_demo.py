"""``manage.py seed_demo``: fill the embedded database with the demo federation (idempotent).

Creates the demo accounts and prints them. Later parts of the service add their demo data
here, so that ``make demo`` always shows the whole product.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_ADMIN = ("admin", "fido-admin-demo")


class Command(BaseCommand):
    help = "Create the demo federation (accounts, clubs, players, results, published lists)."

    def handle(self, *args: object, **options: object) -> None:
        user_model = get_user_model()
        username, password = DEMO_ADMIN
        admin, created = user_model.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password(password)
            admin.save()
        self.stdout.write(f"  demo admin: {username} / {password}")
