"""The Atom feed of new lists: one entry per published list, newest first.

A reader (the press, a club's website) subscribes once and learns of every list the day it
is published. Each entry links to the archived list, names its top three and carries its
seal (both hashes, the inputs' count, the FLADUB and code versions). An erratum
(version 2, 3, ... of a month) is an entry of its own, titled as a corrected version, saying
which version it replaces and why, and linking to its own version's address; the entry of
the version it replaced stays.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.urls import reverse, reverse_lazy
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from matches.disciplines import DISCIPLINES

from .models import Erratum
from .selectors.errata import errata_of_lists
from .selectors.lists import ListInfo, ListRow, latest_published, list_tops

Item = tuple[ListInfo, list[ListRow], Erratum | None]
"""A published list, its first ranks and, for an erratum, the request it answers."""
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

    def items(self) -> list[Item]:
        lists = latest_published(FEED_ITEMS)
        tops = list_tops([rl.id for rl in lists], TOP)
        errata = errata_of_lists([rl.id for rl in lists if (rl.edition or 1) > 1])
        return [(rl, tops.get(rl.id, []), errata.get(rl.id)) for rl in lists]

    def item_title(self, item: Item) -> str:
        ranking_list = item[0]
        names = {
            "title": DISCIPLINES[ranking_list.discipline].title,
            "month": date_format(ranking_list.month, "F Y"),
            "version": ranking_list.edition,
        }
        if (ranking_list.edition or 1) > 1:
            return _("%(title)s, %(month)s: corrected version %(version)s") % names
        return _("%(title)s, %(month)s") % names

    def item_description(self, item: Item) -> str:
        ranking_list, top, found = item
        erratum = ""
        if (ranking_list.edition or 1) > 1:
            erratum = _("Erratum: this version replaces version %(old)s. Why: %(reason)s.") % {
                "old": (ranking_list.edition or 2) - 1,
                "reason": found.reason if found is not None else "-",
            }
        podium = "; ".join(
            f"{row.rank}. {row.name} ({row.country}) {number_format(row.fladub_cents / 100, 2)}"
            for row in top
        )
        podium += "." if podium else ""
        summary = _("%(count)d players ranked.") % {"count": ranking_list.entry_count}
        sealed = ""
        if ranking_list.seal is not None:
            seal = ranking_list.seal
            sealed = _("SHA-256 of the CSV download: %(sha)s.") % {"sha": seal.content_sha256}
            sealed += " " + _(
                "SHA-256 of the %(count)s results it was computed from: %(sha)s. "
                "FLADUB definition version %(fladub)s; software %(code)s."
            ) % {
                "count": number_format(seal.inputs_count or 0, force_grouping=True),
                "sha": seal.inputs_sha256,
                "fladub": seal.fladub_version,
                "code": seal.code_version,
            }
        return " ".join(part for part in (erratum, summary, podium, sealed) if part)

    def item_link(self, item: Item) -> str:
        ranking_list = item[0]
        if (ranking_list.edition or 1) > 1:
            return reverse(
                "rankings:ranking_version",
                args=[ranking_list.discipline, f"{ranking_list.month:%Y-%m}", ranking_list.edition],
            )
        return reverse(
            "rankings:ranking_month", args=[ranking_list.discipline, f"{ranking_list.month:%Y-%m}"]
        )

    def item_guid(self, item: Item) -> str:
        ranking_list = item[0]
        return (
            f"fido-list:{ranking_list.discipline}:{ranking_list.month:%Y-%m}:"
            f"v{ranking_list.version}"
        )

    item_guid_is_permalink = False

    def item_pubdate(self, item: Item) -> dt.datetime | None:
        return item[0].published_at

    def item_updateddate(self, item: Item) -> dt.datetime | None:
        return item[0].published_at
