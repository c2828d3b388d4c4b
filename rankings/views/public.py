"""The public pages: world ranking per discipline, players, clubs, archive, badges.

No login needed. Each view checks its input (404 for an unknown discipline, player, club or
list; 400 for a malformed month, page or filter), calls the selectors of
:mod:`rankings.selectors` and renders. Every page reads a fixed number of queries,
whatever the size of the list: the ranking page one for its lists and one to three for
its page of entries (plus the filters' choices), the player page ten (its match points
read once for the page of results, the ledgers and the forecast).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import BadRequest, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from fido.collation import name_key
from matches import clock
from matches.disciplines import DISCIPLINES
from matches.models import Category, Player, club_id_validator, match_label
from matches.months import Month, local_month

from .. import badges, charts, http_cache, ledger_words
from ..selectors import list_page as pages
from ..selectors.clubs import club_page, clubs_by_country
from ..selectors.counting_results import (
    CountingResult,
    CountingResults,
    PageOutOfRange,
    PlayerPoints,
    counting_results_page,
    player_points,
)
from ..selectors.forecast import Forecast, player_forecast
from ..selectors.ledger import Known, ledger_matches, player_ledger
from ..selectors.lists import (
    EntryInfo,
    ListInfo,
    current_lists,
    discipline_lists,
    published_list,
)
from ..selectors.lists import archive as published_archive
from ..selectors.player_history import HistoryPoint, every_published_list, since_first_listing
from ..selectors.players import player_by_id, player_disciplines, surviving_player
from ..selectors.projection import projected_list, projected_standing
from ..templatetags.public_tags import country_name

MAX_QUERY_LENGTH = 100
MAX_PAGE = 1_000_000
_COUNTRY = re.compile(r"^[A-Za-z]{2}$")
_PAGE = re.compile(r"^[0-9]{1,7}$")
_CURSOR = re.compile(r"^([0-9]{1,9})-([0-9]{1,18})$")
BADGE_MAX_AGE = 60 * 60  # a list changes once a month; an hour keeps embeds fresh enough


def _category_names() -> dict[str, Any]:
    return dict(Category.choices)


# --- input ----------------------------------------------------------------------------------


def _discipline(value: str) -> str:
    if value not in DISCIPLINES:
        raise Http404(_("No such discipline."))
    return value


def _month(value: str) -> Month:
    try:
        return Month.parse(value)
    except ValueError:
        raise BadRequest(_("A month is written YYYY-MM, for example 2026-03.")) from None


def _page(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1").strip() or "1"
    if not _PAGE.match(raw) or not 1 <= int(raw) <= MAX_PAGE:
        raise BadRequest(_("The page must be a whole number from 1."))
    return int(raw)


def _cursor(request: HttpRequest, name: str) -> pages.Cursor | None:
    """``after`` / ``before``: a place in a list written ``RANK-ID`` (the pager writes them)."""
    raw = request.GET.get(name, "").strip()
    if not raw:
        return None
    found = _CURSOR.match(raw)
    if not found:
        raise BadRequest(_("That link to a page of the list is damaged."))
    return int(found.group(1)), int(found.group(2))


def _start_rank(request: HttpRequest) -> int | None:
    """``from``: go to a rank (the "go to rank" field)."""
    return _number_from_1(request, "from", _("The rank must be a whole number from 1."))


def _number_from_1(request: HttpRequest, name: str, refusal: str) -> int | None:
    """``?name=``, a whole number from 1, or None when it is absent or empty; anything else
    is a 400 that says ``refusal``."""
    raw = request.GET.get(name, "").strip()
    if not raw:
        return None
    if not _PAGE.match(raw) or int(raw) < 1:
        raise BadRequest(refusal)
    return int(raw)


def _filters(request: HttpRequest) -> pages.RankingFilters:
    q = " ".join(request.GET.get("q", "").split())
    if len(q) > MAX_QUERY_LENGTH:
        raise BadRequest(_("The search text is too long."))
    country = request.GET.get("country", "").strip()
    if country and not _COUNTRY.match(country):
        raise BadRequest(_("A country is a two-letter code such as DE."))
    club = request.GET.get("club", "").strip()
    if club:
        try:
            club_id_validator(club)
        except ValidationError:
            raise BadRequest(_("A club id looks like CLUB-7.")) from None
    if len(q) < pages.MIN_NAME_SEARCH and not q.upper().startswith("P-"):
        q = ""  # too short to search for (the page says so)
    return pages.RankingFilters(q=q, country=country.upper(), club=club)


def _query(**params: Any) -> str:
    """A query string of the non-empty parameters (for links that keep the filters)."""
    return urlencode({k: v for k, v in params.items() if v not in ("", None, 1)})


def _url_prefixes() -> dict[str, str]:
    """The prefixes of player and club addresses: pages that link hundreds of players
    append the ids instead of reversing a URL for each (a noticeable share of their time)."""
    return {
        "player": reverse("rankings:player", args=["-"])[:-2],
        "club": reverse("rankings:club", args=["-"])[:-2],
    }


def _list_prefix(discipline: str) -> str:
    """The prefix of the addresses of the discipline's lists by month (``YYYY-MM/`` after)."""
    return reverse("rankings:ranking_month", args=[discipline, "-"])[:-2]


# --- the world ranking ----------------------------------------------------------------------


def _discipline_tabs(current: str) -> list[dict[str, Any]]:
    return [
        {
            "code": code,
            "name": info.name,
            "url": reverse("rankings:ranking", args=[code]),
            "current": code == current,
        }
        for code, info in DISCIPLINES.items()
    ]


def list_version(request: HttpRequest) -> int | None:
    """``?version=N`` (N from 1), or None; anything else is a 400."""
    return _number_from_1(
        request, "version", _("A version is a whole number from 1, for example 2.")
    )


def _versions(
    discipline: str, month: str | None, version: int | None, lists: Any
) -> tuple[ListInfo | None, ListInfo | None]:
    """The list the URL shows (a month's latest version, or version ``version``) and, when
    that one is superseded, the latest version of its month."""
    if month is None:
        return lists.current, None
    if version is None:
        if lists.of_month is None:
            raise Http404(_("No list of that month has been published."))
        return lists.of_month, None
    shown = published_list(discipline=discipline, month=_month(month), edition=version)
    if shown is None:
        raise Http404(_("That version of the list does not exist."))
    return shown, lists.of_month if shown.superseded else None


@require_GET
def ranking(
    request: HttpRequest, discipline: str, month: str | None = None, version: int | None = None
) -> HttpResponse:
    discipline = _discipline(discipline)
    if month is not None and version is None and (asked := list_version(request)) is not None:
        return redirect("rankings:ranking_version", discipline, month, asked)
    lists = discipline_lists(discipline, None if month is None else _month(month))
    ranking_list, latest = _versions(discipline, month, version, lists)
    context = _ranking_context(request, discipline, ranking_list, lists)
    context["is_archive"] = month is not None
    context["latest_version"] = latest
    if month is None:
        context["projected"] = projected_list(discipline)
    return http_cache.shows(render(request, "rankings/ranking.html", context), ranking_list)


@require_GET
def ranking_projected(request: HttpRequest, discipline: str) -> HttpResponse:
    """The projected list of the open month: provisional, as of its refresh, no download."""
    discipline = _discipline(discipline)
    projected = projected_list(discipline)
    if projected is None:
        raise Http404(_("There is no projected list yet."))
    lists = discipline_lists(discipline, None)
    context = _ranking_context(request, discipline, projected.ranking_list, lists)
    context.update(is_archive=False, is_current=False, projected=projected, showing_projection=True)
    context["downloads"] = {}
    return render(request, "rankings/ranking.html", context)


def _ranking_context(
    request: HttpRequest, discipline: str, ranking_list: ListInfo | None, lists: Any
) -> dict[str, Any]:
    filters = _filters(request)
    info = DISCIPLINES[discipline]
    context: dict[str, Any] = {
        "discipline": discipline,
        "discipline_name": info.name,
        "title": info.title,
        "game": info.game,
        "tabs": _discipline_tabs(discipline),
        "ranking_list": ranking_list,
        "filters": filters,
        "query": " ".join(request.GET.get("q", "").split()),
        "short_query": bool(request.GET.get("q", "").strip()) and not filters.q,
        "min_search": pages.MIN_NAME_SEARCH,
    }
    if ranking_list is not None:
        context.update(_ranking_table(request, ranking_list, filters, lists))
    return context


def _ranking_table(
    request: HttpRequest,
    ranking_list: ListInfo,
    filters: pages.RankingFilters,
    lists: Any,
) -> dict[str, Any]:
    """The page of the list the request asks for, and what surrounds the table."""
    page_number, start = _page(request), _start_rank(request)
    after, before = _cursor(request, "after"), _cursor(request, "before")
    if start is not None:
        # Go to a rank: the page holding that position, or the matches from that rank on.
        page_number = (min(start, max(ranking_list.entry_count, 1)) - 1) // pages.PAGE_SIZE + 1
        after, before = (start, 0), None
    try:
        if filters.active:
            page = pages.list_page(ranking_list, filters=filters, after=after, before=before)
        else:
            page = pages.list_page(ranking_list, page=page_number)
    except pages.PageOutOfRange:
        raise Http404(_("That page is beyond the end of the list.")) from None
    clubs, more_clubs = pages.club_choices()
    current = lists.current
    keep = {"q": filters.q, "country": filters.country, "club": filters.club}
    return {
        "page": page,
        "list_month": ranking_list.list_month,
        "is_current": current is not None and current.id == ranking_list.id,
        "current_list": current,
        "months": lists.months,
        "countries": sorted(
            ((code, country_name(code)) for code in pages.country_choices()),
            key=lambda choice: (name_key(choice[1]), choice[0]),
        ),
        "clubs": clubs,
        "club_select": not more_clubs,
        "pager": _pager(request.path, keep, page),
        "urls": _url_prefixes(),
        "keep": keep,
        "downloads": _downloads(ranking_list.discipline, ranking_list.list_month),
    }


def _pager(path: str, keep: dict[str, str], page: pages.RankingPage) -> dict[str, str]:
    """The links of the pager: numbered pages of a whole list, cursors of a filtered view."""

    def url(**params: Any) -> str:
        query = _query(**keep, **params)
        return f"{path}?{query}" if query else path

    def place(cursor: pages.Cursor | None) -> str:
        return f"{cursor[0]}-{cursor[1]}" if cursor else ""

    if page.number is not None:
        return {
            "first": url(),
            "previous": url(page=page.number - 1),
            "next": url(page=page.number + 1),
            "last": url(page=page.num_pages),
        }
    return {
        "first": url(),
        "previous": url(before=place(page.previous_cursor)),
        "next": url(after=place(page.next_cursor)),
    }


def _downloads(discipline: str, month: Month) -> dict[str, str]:
    """The whole list as CSV and JSON: the REST API's streamed downloads."""
    return {
        fmt: reverse("api-ranking-download", args=[discipline, str(month), fmt])
        for fmt in ("csv", "json")
    }


@require_GET
def archive(request: HttpRequest) -> HttpResponse:
    """Every published list: one row per month, one column per discipline."""
    found = published_archive()
    return render(
        request,
        "rankings/archive.html",
        {
            "rows": found.rows,
            "columns": [(code, info.title) for code, info in DISCIPLINES.items()],
            "current_ids": found.current_ids,
            "total": found.total,
        },
    )


# --- players --------------------------------------------------------------------------------


def _player_or_redirect(player_id: str, view: str, request: HttpRequest) -> Player | HttpResponse:
    """The player of a federation id (with their club), or a permanent redirect to the
    record a merged one lives on in (the old address keeps working); 404 for an unknown id."""
    found = player_by_id(player_id)
    if found is None:
        raise Http404(_("No such player."))
    if found.merged_into_id is None:
        return found
    survivor = surviving_player(player_id)
    if survivor is None or survivor.merged_into_id is not None:
        raise Http404(_("No such player."))  # a chain of merges too long to follow
    url = reverse(view, args=[survivor.player_id])
    if request.GET:
        url += "?" + request.GET.urlencode()
    return redirect(url, permanent=True)


def _chart_words(points: list[HistoryPoint], name: str, discipline: Any) -> tuple[str, str]:
    """The charts' descriptions (their accessible summaries)."""
    first, last = f"{points[0].month:%Y-%m}", f"{points[-1].month:%Y-%m}"
    fladubs = [p.fladub_cents / 100 for p in points]
    fladub_desc = _(
        "%(name)s's FLADUB in each %(discipline)s list from %(first)s to %(last)s: "
        "highest %(high)s, latest %(latest)s."
    ) % {
        "name": name,
        "discipline": discipline,
        "first": first,
        "last": last,
        "high": number_format(max(fladubs), 2),
        "latest": number_format(fladubs[-1], 2),
    }
    listed = [p for p in points if p.rank is not None]
    if not listed:
        return fladub_desc, ""
    best = min(listed, key=lambda p: (p.rank, p.month))
    rank_desc = _(
        "%(name)s's world rank in each %(discipline)s list: best %(best)d (%(month)s), "
        "latest %(latest)s. Rank 1 is at the top."
    ) % {
        "name": name,
        "discipline": discipline,
        "best": best.rank,
        "month": f"{best.month:%Y-%m}",
        "latest": points[-1].rank if points[-1].rank is not None else _("not listed"),
    }
    return fladub_desc, rank_desc


def _history_charts(points: list[HistoryPoint], name: str, code: str) -> dict[str, Any]:
    labels = [f"{p.month:%Y-%m}" for p in points]
    discipline = DISCIPLINES[code].name
    fladub_desc, rank_desc = _chart_words(points, name, discipline)
    fladub = charts.line_chart(
        labels=labels,
        series=[charts.Series(_("FLADUB"), [p.fladub_cents / 100 for p in points])],
        title=_("FLADUB history (%(discipline)s)") % {"discipline": discipline},
        desc=fladub_desc,
        chart_id=f"chart-fladub-{code}",
        height=220,
        value_format=lambda v: number_format(v, 2),
    )
    rank = charts.line_chart(
        labels=labels,
        series=[charts.Series(_("Rank"), [p.rank for p in points])],
        title=_("World rank history (%(discipline)s)") % {"discipline": discipline},
        desc=rank_desc,
        chart_id=f"chart-rank-{code}",
        height=220,
        invert=True,
        integer=True,
        value_format=lambda v: f"{v:.0f}",
        no_data=_("Not listed"),
    )
    # charts.line_chart escapes every text it writes.
    return {"fladub_svg": mark_safe(fladub), "rank_svg": mark_safe(rank)}  # noqa: S308


def _selected_discipline(
    request: HttpRequest, shown: list[str], entries: dict[str, EntryInfo]
) -> str:
    """The discipline asked for, else the one the player ranks best in, else the first."""
    requested = request.GET.get("discipline", "")
    if requested:
        if requested not in DISCIPLINES:
            raise BadRequest(_("No such discipline."))
        return requested
    if entries:
        return min(entries, key=lambda code: entries[code].rank)
    return shown[0] if shown else "fido"


@require_GET
def player(request: HttpRequest, player_id: str) -> HttpResponse:
    found = _player_or_redirect(player_id, "rankings:player", request)
    if isinstance(found, HttpResponse):
        return found
    standing = current_lists(player_pk=found.pk)
    lists, entries = standing.lists, standing.entries
    played = player_disciplines(found)
    shown = [code for code in DISCIPLINES if code in entries or code in played]
    selected = _selected_discipline(request, shown, entries)
    ranking_list = lists.get(selected)
    projected, projected_entry = projected_standing(selected, found.pk)
    counted = _player_points(found.pk, selected, ranking_list, projected)
    results = _counting_page(request, found, selected, ranking_list, counted)
    every = every_published_list(found.pk, discipline=selected)
    points = since_first_listing(every)
    entry = entries.get(selected)
    # The month after the latest published list: the open month (one query less).
    start = every[-1].list_month.next() if every else None
    calendar = player_forecast(found.pk, discipline=selected, points=counted, start=start)
    if counted is not None:  # the facts the ledgers and the calendar name, in one statement
        ledgered = [ranking_list, projected.ranking_list if projected else None]
        counted.facts(_named_matches(counted, ledgered, calendar))
    context: dict[str, Any] = {
        "projected": projected,
        "ledgers": _ledgers(found.pk, ranking_list, projected, counted, every, projected_entry),
        "forecast": _forecast(calendar),
        "projected_entry": projected_entry,
        "player": found,
        "selected": selected,
        "selected_name": DISCIPLINES[selected].name,
        "tabs": [
            {
                "code": code,
                "name": DISCIPLINES[code].name,
                "entry": entries.get(code),
                "list": lists.get(code),
                "current": code == selected,
                "url": f"?{urlencode({'discipline': code})}",
            }
            for code in (shown or [selected])
        ],
        "entry": entry,
        "ranking_list": ranking_list,
        "results": results,
        "results_pager": _results_pager(request, selected, results),
        "history": list(reversed(points)),
        "charts": _history_charts(points, found.name, selected) if points else None,
        "badge_path": reverse("rankings:player_badge", args=[found.player_id]),
        "badge_alt": _badge_text(selected, entry)[2],
        "badge_snippets": _badge_snippets(request, found),
        "category_names": _category_names(),
        "urls": {**_url_prefixes(), "list": _list_prefix(selected)},
    }
    return render(request, "rankings/player.html", context)


def _player_points(
    player_pk: int, discipline: str, current: ListInfo | None, projected: Any
) -> PlayerPoints | None:
    """The player's match points over every list the page shows them in, read once: the
    current list L(R) (its page of results, its ledger: L(R - 1) too), the open month's
    forecast (R + 1 when L(R) is the latest list) and the projection's ledger; with a
    busy player's pack, the tables of its matches (the page of results shows them)."""
    months = []
    if current is not None:
        month = current.list_month
        months += [month.prev(), month, month.next()]
    if projected is not None:
        month = projected.ranking_list.list_month
        months += [month.prev(), month]
    if not months:
        return None
    return player_points(player_pk, discipline=discipline, months=months, tables=True)


def _named_matches(
    points: PlayerPoints, ledgered: list[ListInfo | None], calendar: Forecast
) -> set[int]:
    """The matches whose facts the page's ledgers (of the current list and the projection's,
    ``ledgered``; None: no such list) and its drop-out calendar name."""
    wanted = {
        pk
        for month in calendar.months
        if len(month.leaving_pks) <= LEAVING_NAMED_UP_TO
        for pk in month.leaving_pks
    }
    for ranking_list in ledgered:
        if ranking_list is None:
            continue
        month = ranking_list.list_month
        if points.covers(month.prev(), points.discipline) and points.covers(
            month, points.discipline
        ):
            wanted |= ledger_matches(points, month)
    return wanted


LEAVING_NAMED_UP_TO = 10
"""The drop-out calendar names the results leaving in a list up to this many; more, and it
says how many and the month they were played in (they are every counting result of that
month: the results table lists them by date). A busy player's 1,354 results were a cell of
a hundred names a month, and every one's facts read (5,447 buffers) for the page."""


def _forecast(found: Forecast) -> dict[str, Any] | None:
    """The drop-out calendar: the next 12 numbers if the player plays nothing (a chart and
    its table); None when the player has no counting result."""
    discipline = found.discipline
    if not any(m.fladub_cents for m in found.months):
        return None
    labels = [str(m.month) for m in found.months]
    chart = charts.line_chart(
        labels=labels,
        series=[charts.Series(_("FLADUB"), [m.fladub_cents / 100 for m in found.months])],
        title=_("FLADUB in the next 12 lists with no new result"),
        desc=_("From %(first)s to %(last)s: %(start)s to %(end)s.")
        % {
            "first": labels[0],
            "last": labels[-1],
            "start": number_format(found.months[0].fladub_cents / 100, 2),
            "end": number_format(found.months[-1].fladub_cents / 100, 2),
        },
        chart_id=f"chart-forecast-{discipline}",
        height=220,
        value_format=lambda v: number_format(v, 2),
    )
    # The results leaving, by their matches' facts (read with the ledgers', up to
    # LEAVING_NAMED_UP_TO a month), or how many and when they were played.
    named = [m.leaving_pks for m in found.months if len(m.leaving_pks) <= LEAVING_NAMED_UP_TO]
    wanted = [pk for pks in named for pk in pks]
    facts = found.points.facts(wanted) if found.points is not None and wanted else {}
    rows = [
        {
            "month": m.month,
            "fladub_cents": m.fladub_cents,
            "change": ledger_words.signed(m.change_cents),
            # Written here, not in the template: a busy player's thousand results leave in
            # the next 12 months, and the template language took most of the page's time.
            "leaving": _leaving(facts, m.leaving_pks)
            if len(m.leaving_pks) <= LEAVING_NAMED_UP_TO
            else ngettext(
                "%(count)s result played in %(month)s",
                "%(count)s results played in %(month)s",
                len(m.leaving_pks),
            )
            % {"count": len(m.leaving_pks), "month": m.leaving_played},
        }
        for m in found.months
    ]
    return {"months": rows, "svg": mark_safe(chart)}  # noqa: S308 - charts escapes all text


def _leaving(facts: Mapping[int, Any], match_pks: Iterable[int]) -> str:
    """``CLUB-7/t2 (2026-03-14), ...``: the results leaving a list, named by their matches'
    facts (:meth:`PlayerPoints.facts`; "—": none). Each match's facts looked up once, its
    day by ``isoformat`` (the same text as ``%Y-%m-%d``): a busy player's 1,283 leaving
    results 2.3 -> 0.8 ms."""
    named = []
    for pk in match_pks:
        match = facts[pk]
        named.append(
            f"{match_label(match.club_id, match.external_id)} ({match.date_played.isoformat()})"
        )
    return ", ".join(named) or "—"


LEDGER_RANK_EXPLAINED_UP_TO = 1_000
"""The player page explains a change of rank (who passed, who entered above) up to this
rank: the counts read the entries above the player (the API explains every rank)."""


def _ledgers(
    player_pk: int,
    current: ListInfo | None,
    projected: Any,
    points: PlayerPoints | None,
    every: list[HistoryPoint],
    projected_entry: EntryInfo | None,
) -> list[dict[str, Any]]:
    """Why the number changed: in the current list, and in the projection (provisional).
    The lists before them and the player's entries come from ``every`` published list of
    the discipline (the history's statement) and the projection's entry."""
    found = []
    by_month = {point.month: point for point in every}
    entries = {point.list_id: point.entry for point in every if point.entry is not None}
    if projected is not None and projected_entry is not None:
        entries[projected.ranking_list.id] = projected_entry
    targets = [(current, False)] + ([(projected.ranking_list, True)] if projected else [])
    for target, provisional in targets:
        if target is None:
            continue
        before = by_month.get(target.list_month.prev().first_day)
        item = player_ledger(
            player_pk,
            ranking_list=target,
            explain_rank_up_to=LEDGER_RANK_EXPLAINED_UP_TO,
            points=points,
            known=Known(previous_id=before.list_id if before else None, entries=entries),
        )
        if item.from_entry is None and item.to_entry is None:
            continue
        found.append(
            {
                "provisional": provisional,
                "month_day": item.month.first_day,
                "number": ledger_words.number_sentence(item),
                "rank": ledger_words.rank_sentence(item.rank),
            }
        )
    return found


RESULTS_PER_PAGE = 50
"""Results with their tables a page of the player page shows, as many as a page of the
ranking has rows (the API's pages hold 100 by default): the best 20 and 30 more. A busy
player's page of 100 tables cost 2.4 ms more CPU and 3.5 ms more time in all (the tables'
members read and written) for a page already long to scroll."""


def _counting_page(
    request: HttpRequest,
    player: Player,
    discipline: str,
    ranking_list: ListInfo | None,
    points: PlayerPoints | None,
) -> CountingResults[CountingResult] | None:
    """The page of the player's counting results asked for (``?page=``,
    :data:`RESULTS_PER_PAGE` a page, the best 20 on the first); a page after the last is a
    404."""
    number = _page(request)
    if ranking_list is None:
        return None
    try:
        return counting_results_page(
            player.pk,
            discipline=discipline,
            month=ranking_list.list_month,
            page=number,
            page_size=RESULTS_PER_PAGE,
            points=points,
        )
    except PageOutOfRange:
        raise Http404(_("That page is beyond the player's last result.")) from None


def _results_pager(
    request: HttpRequest, discipline: str, results: CountingResults[CountingResult] | None
) -> dict[str, str] | None:
    """The links between the pages of the player's results, or None on a single page."""
    if results is None or results.num_pages == 1:
        return None

    def url(number: int) -> str:
        query = _query(discipline=discipline, page=number)
        return f"{request.path}?{query}#results-h"

    return {
        "first": url(1),
        "previous": url(results.number - 1),
        "next": url(results.number + 1),
        "last": url(results.num_pages),
    }


def _badge_snippets(request: HttpRequest, player: Player) -> dict[str, str]:
    """The code a player pastes into a web page or a README to show their badge."""
    page = request.build_absolute_uri(reverse("rankings:player", args=[player.player_id]))
    badge = request.build_absolute_uri(reverse("rankings:player_badge", args=[player.player_id]))
    alt = _("FIDO world ranking of %(name)s") % {"name": player.name}
    markdown_alt = re.sub(r"([\\\[\]])", r"\\\1", alt)
    html = format_html('<a href="{}"><img src="{}" alt="{}" height="20"></a>', page, badge, alt)
    return {
        "html": str(html),
        "markdown": f"[![{markdown_alt}]({badge})]({page})",
    }


def _badge_text(discipline: str, entry: EntryInfo | None) -> tuple[str, str, str]:
    label = (
        _("FIDO world rank")
        if discipline == "fido"
        else _("%(discipline)s world rank") % {"discipline": DISCIPLINES[discipline].name}
    )
    if entry is None:
        message = _("unranked")
    else:
        message = _("%(rank)d · FLADUB %(fladub)s") % {
            "rank": entry.rank,
            "fladub": f"{entry.fladub_cents / 100:.2f}",
        }
    return label, message, f"{label} {message}"


@require_GET
def player_badge(request: HttpRequest, player_id: str) -> HttpResponse:
    found = _player_or_redirect(player_id, "rankings:player_badge", request)
    if isinstance(found, HttpResponse):
        return found
    discipline = request.GET.get("discipline", "fido")
    if discipline not in DISCIPLINES:
        raise BadRequest(_("No such discipline."))
    entry = current_lists(player_pk=found.pk).entries.get(discipline)
    label, message, _whole = _badge_text(discipline, entry)
    colour = badges.GREY if entry is None else badges.GREEN if entry.rank <= 100 else badges.BLUE
    response = HttpResponse(
        badges.badge_svg(label, message, colour), content_type="image/svg+xml; charset=utf-8"
    )
    response["Cache-Control"] = f"public, max-age={BADGE_MAX_AGE}"
    response["X-Content-Type-Options"] = "nosniff"
    # Embedded on other sites: let them load it, but never run anything inside it.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    return response


# --- clubs ------------------------------------------------------------------------------------


@require_GET
def clubs(request: HttpRequest) -> HttpResponse:
    # By the country's name in the reader's language (Deutschland, Niederlande, Österreich),
    # then the club's, accents and case aside.
    by_country = sorted(
        (
            (code, sorted(members, key=lambda c: (name_key(c.name), c.club_id)))
            for code, members in clubs_by_country()
        ),
        key=lambda group: (name_key(country_name(group[0])), group[0]),
    )
    return render(
        request,
        "rankings/clubs.html",
        {"by_country": by_country, "total": sum(len(members) for _code, members in by_country)},
    )


@require_GET
def club(request: HttpRequest, club_id: str) -> HttpResponse:
    found = club_page(club_id, today=local_month(clock.now(), clock.federation_tz()))
    if found is None:
        raise Http404(_("No such club."))
    names = {code: info.name for code, info in DISCIPLINES.items()}
    context = {
        "page": found,
        "discipline_names": names,
        "category_names": _category_names(),
        "urls": _url_prefixes(),  # hundreds of player links: no reverse() for each
    }
    return render(request, "rankings/club.html", context)
