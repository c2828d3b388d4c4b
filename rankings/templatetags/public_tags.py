"""Template tags of the public pages.

``{% main_nav %}``: the site's main navigation (the rankings per discipline, archive, clubs,
and the secretary and dashboard links for the users who have them; one query for a
logged-in user, none for a visitor). ``|movement``: an entry's arrow and its words for
screen readers. ``|cents``: integer cents as a localized 2-decimal number.
``{% result_table result urls %}``: a counting result's table (place, partners, opponents).
``|get_item``: a dictionary lookup by a variable key.

The filters written in Python stand in for template fragments repeated on every row of
pages of 50 or more rows, where the template engine's per-variable cost adds up.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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
def get_item(mapping: Any, key: Any) -> Any:
    """``{{ names|get_item:code }}``: a dictionary lookup by a variable key."""
    try:
        return mapping.get(key, key)
    except AttributeError:
        return key


@register.filter
def movement(entry: Any) -> SafeString:
    """``{{ entry|movement }}``: ▲ 3 / ▼ 2 / — / "new", with the words for screen readers."""
    if entry.previous_rank is None:
        return format_html(
            '<span class="move move-new">{}<span class="visually-hidden"> {}</span></span>',
            _("new"),
            _("on the list"),
        )
    moved = entry.movement or 0
    if moved > 0:
        words = ngettext("up %(n)s place", "up %(n)s places", moved) % {"n": moved}
        return format_html(
            '<span class="move move-up"><span aria-hidden="true">▲ {}</span>'
            '<span class="visually-hidden">{}</span></span>',
            moved,
            words,
        )
    if moved < 0:
        words = ngettext("down %(n)s place", "down %(n)s places", -moved) % {"n": -moved}
        return format_html(
            '<span class="move move-down"><span aria-hidden="true">▼ {}</span>'
            '<span class="visually-hidden">{}</span></span>',
            -moved,
            words,
        )
    return format_html(
        '<span class="move move-same"><span aria-hidden="true">—</span>'
        '<span class="visually-hidden">{}</span></span>',
        _("unchanged"),
    )


@register.filter
def cents(value: int | None) -> str:
    """``{{ entry.fladub_cents|cents }}``: 43107 -> "431.07" ("431,07" in German)."""
    if value is None:
        return ""
    return number_format(value / 100, 2)


def _player_links(players: Any, prefix: str, separator: str) -> SafeString:
    return format_html_join(
        separator, '<a href="{}{}/">{}</a>', ((prefix, p.player_id, p.name) for p in players)
    )


@register.simple_tag
def result_table(result: Any, urls: dict[str, str]) -> SafeString:
    """The table a counting result was played at: place and score, partners, opponents."""
    prefix = urls["player"]
    place = _("%(place)s of %(sides)s, score %(score)s") % {
        "place": result.place,
        "sides": result.sides,
        "score": result.side_score,
    }
    team = (
        format_html(
            '<span class="team">{} {}</span>', _("with"), _player_links(result.team, prefix, ", ")
        )
        if result.team
        else ""
    )
    opponents = format_html_join(
        ", ",
        '{} <span class="score">({})</span>',
        ((_player_links(players, prefix, " &amp; "), score) for score, players in result.opponents),
    )
    return format_html(
        '<span class="place">{}</span>{}<span class="vs">{} {}</span>',
        place,
        team,
        _("against"),
        opponents,
    )
