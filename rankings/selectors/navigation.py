"""What the site's navigation needs to know about the reader."""

from __future__ import annotations

from typing import Any

from matches.models import Secretary


def is_secretary(user: Any) -> bool:
    """Whether the user may use the secretary's pages (staff, or secretary of a club)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or Secretary.objects.filter(user=user).exists()
