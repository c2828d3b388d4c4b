"""The Atom feed of new lists: one entry per published list, newest first.

A reader (the press, a club's website) subscribes once and learns of every list the day it
is published. Each entry links to the archived list and names its top three.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.urls import reverse, reverse_lazy
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import selectors_public as selectors
from .models import RankingList
from .names import DISCIPLINE_TITLES

FEED_ITEMS = 36  # three disciplines, a year of lists
TOP = 3


class NewListsFeed(Feed):
    feed_type = Atom1Feed
    title = gettext_lazy("FIDO world ranking: new lists")
    subtitle = gettext_lazy(
        "Every ranking list the FIDO dominoes federation publishes, the day it is published."
    )
    link = reverse_lazy("rankings:archive")
    feed_url = reverse_lazy("rankings:feed_lists")
    author_name = gettext_lazy("FIDO – Fédération Internationale de Dominos")  # noqa: RUF001

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        return None

    def items(self) -> list[RankingList]:
        lists = selectors.latest_published(FEED_ITEMS)
        tops = selectors.top_entries_by_rank([rl.pk for rl in lists], TOP)
        for ranking_list in lists:
            ranking_list.top = tops.get(ranking_list.pk, [])  # type: ignore[attr-defined]
        return lists

    def item_title(self, item: RankingList) -> str:
        return _("%(title)s, %(month)s") % {
            "title": DISCIPLINE_TITLES.get(item.discipline, item.discipline),
            "month": date_format(item.month, "F Y"),
        }

    def item_description(self, item: RankingList) -> str:
        top = "; ".join(
            f"{e.rank}. {e.player.name} ({e.player.country}) {e.fladub_cents / 100:.2f}"
            for e in getattr(item, "top", [])
        )
        summary = _("%(count)d players ranked.") % {"count": item.entry_count}
        return f"{summary} {top}".strip()

    def item_link(self, item: RankingList) -> str:
        return reverse("rankings:ranking_month", args=[item.discipline, f"{item.month:%Y-%m}"])

    def item_guid(self, item: RankingList) -> str:
        return f"fido-list:{item.discipline}:{item.month:%Y-%m}:v{item.version}"

    item_guid_is_permalink = False

    def item_pubdate(self, item: RankingList) -> dt.datetime | None:
        return item.published_at

    def item_updateddate(self, item: RankingList) -> dt.datetime | None:
        return item.published_at
