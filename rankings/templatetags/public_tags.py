"""Template tags of the public pages.

``{% main_nav %}``: the site's main navigation (the rankings per discipline, archive, clubs,
and the secretary and dashboard links for the users who have them; one query for a
logged-in user, none for a visitor). ``|absolute``: a number's magnitude. ``|get_item``: a
dictionary lookup by a variable key.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from rankings import selectors_public as selectors
from rankings.names import DISCIPLINE_NAMES

register = template.Library()


@register.inclusion_tag("rankings/_nav.html", takes_context=True)
def main_nav(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    path = getattr(request, "path", "")
    user = context.get("user")

    def link(url: str, label: Any, *, prefix: bool = True) -> dict[str, Any]:
        current = path == url or (prefix and path.startswith(url))
        return {"url": url, "label": label, "current": current}

    rankings = [
        link(reverse("rankings:ranking", args=[code]), name)
        for code, name in DISCIPLINE_NAMES.items()
    ]
    return {
        "rankings": rankings,
        "archive": link(reverse("rankings:archive"), None),
        "clubs": link(reverse("rankings:clubs"), None),
        "secretary": link(reverse("matches:my_submissions"), None)
        if selectors.is_secretary(user)
        else None,
        "dashboard": link(reverse("rankings:dashboard"), None)
        if user is not None and getattr(user, "is_authenticated", False) and user.is_staff
        else None,
    }


@register.filter
def absolute(value: Any) -> Any:
    """``{{ n|absolute }}``: the magnitude of a number (places moved down)."""
    try:
        return abs(value)
    except TypeError:
        return value


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """``{{ names|get_item:code }}``: a dictionary lookup by a variable key."""
    try:
        return mapping.get(key, key)
    except AttributeError:
        return key
