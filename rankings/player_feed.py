"""A player's Atom feed, "your rank changed": ``/players/<id>/feed.atom``.

One entry per published list version (a month's list, and each erratum of it) of any
discipline in which the player's rank or FLADUB changed
(:func:`rankings.selectors.rank_changes.rank_changes`), newest first, at most
:data:`FEED_ITEMS`: the title names the discipline, the month (and the version of an
erratum) and the new rank; the text gives the rank and the FLADUB before and after.
Each entry links to that version of the list at the player's rank; its id is stable
(``fido-rank:<player>:<discipline>:<YYYY-MM>:v<version>``). A merged player's id serves
the feed of the record it lives on in; an unknown id is a 404. Caching:
:func:`rankings.http_cache.publications_cached` (its route).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.disciplines import DISCIPLINES
from matches.models import Player

from .selectors.players import surviving_player
from .selectors.rank_changes import RankChange, rank_changes

FEED_ITEMS = 60  # five years of one discipline's lists
Item = tuple[str, RankChange]
"""The player's federation id and a change (the feed object is shared by all requests:
nothing about one request is kept on it)."""


def _fladub(cents: int) -> str:
    return number_format(cents / 100, 2)


def _rank(rank: int | None) -> str:
    return str(rank) if rank is not None else _("not listed")


class PlayerRankFeed(Feed):
    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Player:
        found = surviving_player(kwargs["player_id"])
        if found is None or found.merged_into_id is not None:
            raise Http404(_("No such player."))
        return found

    def title(self, obj: Player) -> str:
        return _("FIDO world ranking: %(name)s's rank") % {"name": obj.name}

    def subtitle(self, obj: Player) -> str:
        return _(
            "Every published list in which %(name)s's rank or FLADUB changed, the day it is "
            "published."
        ) % {"name": obj.name}

    def link(self, obj: Player) -> str:
        return reverse("rankings:player", args=[obj.player_id])

    def feed_url(self, obj: Player) -> str:
        return reverse("rankings:feed_player", args=[obj.player_id])

    def author_name(self) -> str:
        return _("FIDO – Fédération Internationale de Dominos")  # noqa: RUF001

    def items(self, obj: Player) -> list[Item]:
        return [(obj.player_id, change) for change in rank_changes(obj.pk, limit=FEED_ITEMS)]

    def item_title(self, pair: Item) -> str:
        item = pair[1]
        words = {
            "discipline": DISCIPLINES[item.discipline].title,
            "month": date_format(item.month.first_day, "F Y"),
            "version": item.edition or 1,
            "rank": _rank(item.rank_to),
        }
        if (item.edition or 1) > 1:
            return _("%(discipline)s, %(month)s (version %(version)s): rank %(rank)s") % words
        return _("%(discipline)s, %(month)s: rank %(rank)s") % words

    def item_description(self, pair: Item) -> str:
        item = pair[1]
        if item.rank_to is None:
            moved = _("Left the list (it holds only players with FLADUB above 0).")
        elif item.rank_from is None:
            moved = _("Entered the list at rank %(rank)d of %(count)d.") % {
                "rank": item.rank_to,
                "count": item.entry_count,
            }
        elif item.places:
            moved = ngettext(
                "Rank %(old)d → %(new)d (%(places)+d place) of %(count)d.",
                "Rank %(old)d → %(new)d (%(places)+d places) of %(count)d.",
                abs(item.places),
            ) % {
                "old": item.rank_from,
                "new": item.rank_to,
                "places": item.places,
                "count": item.entry_count,
            }
        else:
            moved = _("Rank %(rank)d of %(count)d, unchanged.") % {
                "rank": item.rank_to,
                "count": item.entry_count,
            }
        sign = "+" if item.change_cents > 0 else ""
        number = _("FLADUB %(old)s → %(new)s (%(change)s).") % {
            "old": _fladub(item.fladub_from_cents),
            "new": _fladub(item.fladub_to_cents),
            "change": sign + _fladub(item.change_cents),
        }
        return f"{moved} {number}"

    def item_link(self, pair: Item) -> str:
        """That version of the list, at the page holding the player's rank."""
        item = pair[1]
        page = reverse(
            "rankings:ranking_version", args=[item.discipline, str(item.month), item.edition or 1]
        )
        return f"{page}?from={item.rank_to}" if item.rank_to else page

    def item_guid(self, pair: Item) -> str:
        player_id, item = pair
        return f"fido-rank:{player_id}:{item.discipline}:{item.month}:v{item.edition or 1}"

    item_guid_is_permalink = False

    def item_pubdate(self, pair: Item) -> dt.datetime | None:
        return pair[1].published_at

    def item_updateddate(self, pair: Item) -> dt.datetime | None:
        return pair[1].published_at
