"""Template tags of the public pages.

``{% main_nav %}``: the site's main navigation (the rankings per discipline, archive, clubs,
and the secretary and dashboard links for the users who have them; one query for a
logged-in user, none for a visitor). ``|movement``: an entry's arrow and its words for
screen readers. ``|cents``: integer cents as a localized 2-decimal number.
``{% ranking_rows entries urls %}``: the rows of the ranking table.
``{% forecast_rows months %}``: the rows of the player page's drop-out calendar.
``{% history_rows points list_url %}``: the rows of the player page's history table.
``{% counting_rows results urls %}``: the rows of a player's table of counting results.
``{% member_rows members lists urls %}``, ``{% recent_rows matches names categories urls %}``:
the rows of a club page's members and latest results.
``{% choice_options choices selected %}``: the ``<option>`` elements of a select.
``|get_item``: a dictionary lookup by a variable key.
``{% datatable rows labelledby=ID class=CSS empty=TEXT %}...{% enddatatable %}``: a data
table in its scrollable, labelled region, or the words for no rows.

The filters and tags written in Python stand in for template fragments repeated on every
row of pages of 50 or more rows (or every option of a select of 50 countries), where the
template engine's per-variable cost adds up: the ranking table's 50 rows cost some 3 ms of
CPU as a template loop, half a millisecond here. Every text they write is escaped with
:func:`html.escape` (what Django's ``escape`` calls, without its per-call checks for lazy
strings; a text with none of its five characters, most names and ids, is returned as it
is), the translated words (categories) are looked up once a table, and numbers are
formatted as the template filters format them (``floatformat``, ``number_format``).
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from html import escape as html_escape
from typing import Any
from urllib.parse import quote

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token, token_kwargs
from django.urls import reverse
from django.utils.formats import date_format, get_format, number_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django_countries import countries

from matches.disciplines import DISCIPLINES
from matches.models import Category
from rankings.numbers import cents_text
from rankings.selectors.navigation import is_secretary

register = template.Library()

_ESCAPED = frozenset("&<>\"'")


# What ``quote`` leaves as it is (its default ``safe`` is "/"): federation and club ids.
_URL_SAFE = frozenset(string.ascii_letters + string.digits + "_.-~/")


def urlquote(text: str) -> str:
    """:func:`urllib.parse.quote`, the text itself when it holds nothing to quote (every
    generated id: a page links hundreds)."""
    return text if _URL_SAFE.issuperset(text) else quote(text)


def escape(text: str) -> str:
    """:func:`html.escape` (quotes too), the text itself when it holds nothing to escape
    (the common case, in half the time)."""
    return text if _ESCAPED.isdisjoint(text) else html_escape(text)


@register.inclusion_tag("rankings/_nav.html", takes_context=True)
def main_nav(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    path = getattr(request, "path", "")
    user = context.get("user")

    def link(url: str, label: Any, *, prefix: bool = True) -> dict[str, Any]:
        current = path == url or (prefix and path.startswith(url))
        return {"url": url, "label": label, "current": current}

    rankings = [
        link(reverse("rankings:ranking", args=[code]), info.name)
        for code, info in DISCIPLINES.items()
    ]
    return {
        "rankings": rankings,
        "archive": link(reverse("rankings:archive"), None),
        "clubs": link(reverse("rankings:clubs"), None),
        "secretary": link(reverse("matches:my_submissions"), None) if is_secretary(user) else None,
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
        new, on_list = escape(_("new")), escape(_("on the list"))
        html = (
            f'<span class="move move-new">{new}'
            f'<span class="visually-hidden"> {on_list}</span></span>'
        )
    elif (moved := entry.movement or 0) > 0:
        words = ngettext("up %(n)s place", "up %(n)s places", moved) % {"n": moved}
        html = (
            f'<span class="move move-up"><span aria-hidden="true">▲ {moved:d}</span>'
            f'<span class="visually-hidden">{escape(words)}</span></span>'
        )
    elif moved < 0:
        words = ngettext("down %(n)s place", "down %(n)s places", -moved) % {"n": -moved}
        html = (
            f'<span class="move move-down"><span aria-hidden="true">▼ {-moved:d}</span>'
            f'<span class="visually-hidden">{escape(words)}</span></span>'
        )
    else:
        unchanged = escape(_("unchanged"))
        html = (
            '<span class="move move-same"><span aria-hidden="true">—</span>'
            f'<span class="visually-hidden">{unchanged}</span></span>'
        )
    return mark_safe(html)  # noqa: S308 - the words are escaped, the numbers are integers


@register.filter
def cents(value: int | None) -> str:
    """``{{ entry.fladub_cents|cents }}``: 43107 -> "431.07" ("431,07" in German)."""
    if value is None:
        return ""
    return number_format(value / 100, 2)


def _player_links(players: Iterable[Any], prefix: str, separator: str) -> str:
    """Links to players' pages; ``prefix`` is escaped already."""
    return separator.join(
        f'<a href="{prefix}{escape(p.player_id)}/">{escape(p.name)}</a>' for p in players
    )


def _result_table(result: Any, prefix: str, words: dict[str, str]) -> str:
    """The table a counting result was played at: place and score, partners, opponents.
    ``prefix`` (the player address prefix) is escaped; ``words`` are the translated words
    "with" and "against" and the place's pattern, looked up once per page."""
    place = words["place"] % {
        "place": result.place,
        "sides": result.sides,
        "score": result.side_score,
    }
    team = (
        f'<span class="team">{escape(words["with"])} '
        f"{_player_links(result.team, prefix, ', ')}</span>"
        if result.team
        else ""
    )
    opponents = ", ".join(
        f"{_player_links(side.players, prefix, ' &amp; ')} "
        f'<span class="score">({escape(str(side.score))})</span>'
        for side in result.opponents
    )
    return (
        f'<span class="place">{escape(place)}</span>{team}'
        f'<span class="vs">{escape(words["against"])} {opponents}</span>'
    )


@register.simple_tag
def ranking_rows(entries: Iterable[Any], urls: dict[str, str]) -> SafeString:
    """The ranking table's body rows (:class:`rankings.sql.ListRow`):
    rank (the top three marked as the podium), movement, the player with their id (and
    country, shown on narrow screens), country (by name, in the active language), club,
    FLADUB, results counted.

    Every text is escaped with :func:`html.escape`, which is what Django's ``escape``
    calls; called directly it skips the lazy-string checks that ``format_html`` makes on
    each of the some 600 values of a page."""
    player_url, club_url = escape(urls["player"]), escape(urls["club"])
    rows = []
    names = _CountryNames()
    for entry in entries:
        pid, country = escape(entry.player_id), names[entry.country]
        link = f"{player_url}{escape(urlquote(entry.player_id))}/"
        podium = f' class="podium podium-{entry.rank:d}"' if entry.rank <= 3 else ""
        club = (
            f'<a href="{club_url}{escape(urlquote(entry.club_id))}/">{escape(entry.club_name)}</a>'
            if entry.club_id
            else ""
        )
        rows.append(
            f"<tr{podium}>"
            f'<td class="num rank">{entry.rank:d}</td>'
            f'<td class="movement">{movement(entry)}</td>'
            f'<th scope="row" class="player"><a href="{link}">{escape(entry.name)}</a> '
            f'<small class="pid">{pid}<span class="narrow-only"> · {country}</span></small></th>'
            f'<td class="col-wide">{country}</td>'
            f'<td class="col-wide">{club}</td>'
            f'<td class="num fladub">{escape(cents(entry.fladub_cents))}</td>'
            f'<td class="num">{entry.results_counted:d}</td>'
            "</tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped


@register.simple_tag
def forecast_rows(months: Iterable[dict[str, Any]]) -> SafeString:
    """The drop-out calendar's rows (the player page's ``forecast.months``): the list's
    month, the FLADUB, its change and the results leaving (the last two written by the
    view). Escaped as :func:`ranking_rows` escapes."""
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f"<tr><td>{escape(str(m['month']))}</td>"
            f'<td class="num">{escape(cents(m["fladub_cents"]))}</td>'
            f'<td class="num">{escape(str(m["change"]))}</td>'
            f"<td>{escape(str(m['leaving']))}</td></tr>\n"
            for m in months
        )
    )


@register.simple_tag
def history_rows(points: Iterable[Any], list_url: str) -> SafeString:
    """The rows of a player's history table (:class:`rankings.sql.HistoryPoint`, newest
    first): the list's month (a link: ``list_url`` with ``YYYY-MM/`` appended), the rank
    or "not listed", the FLADUB, the players ranked; written as the template wrote them
    (``date:"F Y"``, ``floatformat:2``, ``floatformat:"g"``), in the reader's language."""
    prefix = escape(list_url)
    not_listed = f'<span class="muted">{escape(_("not listed"))}</span>'
    separator = get_format("DECIMAL_SEPARATOR")
    rows = []
    for point in points:
        month = point.month
        rank = f"{point.rank:d}" if point.rank else not_listed
        fladub = cents_text(point.fladub_cents).replace(".", separator)
        rows.append(
            f'<tr><th scope="row"><a href="{prefix}{month:%Y-%m}/">'
            f"{escape(date_format(month, 'F Y'))}</a></th>\n"
            f'  <td class="num">{rank}</td>\n'
            f'  <td class="num">{escape(fladub)}</td>\n'
            f'  <td class="num">{escape(number_format(point.entry_count, force_grouping=True))}'
            "</td></tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped


@register.simple_tag
def member_rows(members: Iterable[Any], lists: Iterable[Any], urls: dict[str, str]) -> SafeString:
    """The club page's member rows (:class:`rankings.selectors.clubs.ClubMember`): the
    player with their id, country, and per list (``lists``, the columns) their rank and
    FLADUB, or a dash read as "unranked". Escaped as :func:`ranking_rows` escapes."""
    player_url = escape(urls["player"])
    disciplines = [ranking_list.discipline for ranking_list in lists]
    separator = get_format("DECIMAL_SEPARATOR")
    unranked = (
        f'<td class="num"><span class="muted" aria-label="{escape(_("unranked"))}">'
        "\N{EN DASH}</span></td>"
    )
    countries = _CountryNames()
    rows = []
    for member in members:
        player, entries = member.player, member.entries
        cells = []
        for discipline in disciplines:
            entry = entries.get(discipline)
            if entry is None or not entry.rank:
                cells.append(unranked)
                continue
            fladub = cents_text(entry.fladub_cents).replace(".", separator)
            cells.append(
                f'<td class="num">{entry.rank:d} '
                f'<small class="muted">({escape(fladub)})</small></td>'
            )
        rows.append(
            f'<tr><th scope="row"><a href="{player_url}{escape(urlquote(player.player_id))}/">'
            f'{escape(player.name)}</a> <small class="pid">{escape(player.player_id)}</small></th>'
            f"<td>{countries[player.country]}</td>{''.join(cells)}</tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped


@register.simple_tag
def recent_rows(
    matches: Iterable[Any], names: dict[str, str], categories: dict[str, Any], urls: dict[str, str]
) -> SafeString:
    """The club page's rows of its latest results
    (:class:`rankings.selectors.clubs.RecentMatch`): the date, discipline and category,
    every side numbered with its players, score and place, and whether the match was
    submitted on time. Escaped as :func:`ranking_rows` escapes."""
    player_url = escape(urls["player"])
    on_time, late = escape(_("on time")), escape(_("late"))
    side_words, place_words = _("Side %(n)s"), _("place %(place)s")
    # Translated names, escaped once per call (lazy: each use would translate anew).
    named = {code: escape(str(name)) for code, name in names.items()}
    categorised = {code: escape(str(name)) for code, name in categories.items()}
    rows = []
    for match in matches:
        sides = "".join(
            f'<li><span class="side-no">{escape(side_words % {"n": n})}:</span> '
            + ", ".join(
                f'<a href="{player_url}{escape(urlquote(p.player_id))}/">{escape(p.name)}</a>'
                for p in side.players
            )
            + f' <span class="score">{side.score:d}</span> <span class="placing">'
            f"({escape(place_words % {'place': side.place})})</span></li>"
            for n, side in enumerate(match.sides, start=1)
        )
        discipline = named.get(match.discipline, escape(str(match.discipline)))
        category = categorised.get(match.category, escape(str(match.category)))
        rows.append(
            "<tr>"
            f'<td class="nowrap">{match.date_played:%Y-%m-%d}</td>'
            f"<td>{discipline}</td>"
            f"<td>{category}</td>"
            f'<td><ul class="sides-list">{sides}</ul></td>'
            f'<td><span class="status status-{escape(match.status)}">'
            f"{on_time if match.status == 'on_time' else late}</span></td>"
            "</tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped


_CENT = Decimal("0.01")


def two_places(value: float, separator: str) -> str:
    """``value|floatformat:2`` without its per-call costs (the locale's formats looked up,
    ``Decimal`` round trips through ``number_format``): rounded half up from the float's
    shortest representation, a minus only if something is left after rounding, the
    decimal ``separator`` of the reader's language (looked up once per table)."""
    rounded = Decimal(repr(value)).quantize(_CENT, ROUND_HALF_UP)
    text = f"{rounded.copy_abs():f}".replace(".", separator)
    return f"-{text}" if rounded < 0 else text


def _category_words() -> dict[str, str]:
    """The categories' names in the active language, escaped (translated once a table, not
    once a row)."""
    return {value: escape(str(label)) for value, label in Category.choices}


@register.simple_tag
def counting_rows(results: Iterable[Any], urls: dict[str, str]) -> SafeString:
    """The rows of a player's counting results
    (:class:`rankings.selectors.counting_results.CountingResult`): date, club, category,
    the table, points, weight now, weighted points,
    weight and worth next month, whether among the best 20. Numbers as ``floatformat:2``
    writes them (rounded half up, in the reader's language)."""
    club_url, player_url = escape(urls["club"]), escape(urls["player"])
    words = {
        "place": _("%(place)s of %(sides)s, score %(score)s"),
        "with": _("with"),
        "against": _("against"),
    }
    # (Translated outside the f-strings: xgettext does not look inside them.)
    drops_out, yes, no = escape(_("drops out")), escape(_("yes")), escape(_("no"))
    drops_out = f'<span class="muted">{drops_out}</span>'
    categories = _category_words()
    separator = get_format("DECIMAL_SEPARATOR")
    best = (f'<span class="tag ok">{yes}</span>', f'<span class="muted">{no}</span>')
    rows = []
    for result in results:
        twelfths = result.weight_twelfths
        following = result.weight_next_twelfths
        next_month = (
            f'{following:d}/12 <small class="muted">= '
            f"{escape(two_places(result.weighted_next, separator))}</small>"
            if following
            else drops_out
        )
        category = categories.get(result.category) or escape(str(result.category))
        row_class = "" if result.in_best else ' class="not-best"'
        rows.append(
            f"<tr{row_class}>"
            f'<td class="nowrap">{result.date_played:%Y-%m-%d}</td>'
            f'<td><a href="{club_url}{escape(urlquote(result.club_id))}/">'
            f"{escape(result.club_name)}</a></td>"
            f"<td>{category}</td>"
            f'<td class="table-cell">{_result_table(result, player_url, words)}</td>'
            f'<td class="num">{escape(two_places(result.points, separator))}</td>'
            f'<td class="num"><span title="{twelfths:d}/12">{twelfths:d}/12</span></td>'
            f'<td class="num strong">{escape(two_places(result.weighted, separator))}</td>'
            f'<td class="num">{next_month}</td>'
            f"<td>{best[0] if result.in_best else best[1]}</td>"
            "</tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped


@register.simple_tag
def choice_options(choices: Iterable[tuple[str, str]], selected: str) -> SafeString:
    """``<option>`` elements of (value, label) pairs, the one equal to ``selected`` marked."""
    return mark_safe(  # noqa: S308 - values and labels are escaped
        "".join(
            f'<option value="{escape(value)}"{" selected" if value == selected else ""}>'
            f"{escape(label)}</option>"
            for value, label in choices
        )
    )


class DataTableNode(template.Node):
    def __init__(
        self, rows: FilterExpression, options: dict[str, FilterExpression], body: NodeList
    ) -> None:
        self.rows, self.options, self.body = rows, options, body

    def render(self, context: template.Context) -> str:
        options = {name: value.resolve(context) for name, value in self.options.items()}
        if not self.rows.resolve(context):
            if not options.get("empty"):
                return ""
            css = options.get("empty_class", "empty")
            return format_html(
                "<p{}>{}</p>", format_html(' class="{}"', css) if css else "", options["empty"]
            )
        css = format_html(' class="{}"', options["class"]) if options.get("class") else ""
        return format_html(
            '<div class="table-wrap" role="region" aria-labelledby="{}" tabindex="0">\n'
            "<table{}>{}</table>\n</div>",
            options["labelledby"],
            css,
            mark_safe(self.body.render(context)),  # noqa: S308 - a rendered template
        )


@register.tag
def datatable(parser: Parser, token: Token) -> DataTableNode:
    """``{% datatable rows labelledby="x-caption" class="x" empty=words %}`` BODY
    ``{% enddatatable %}``: when ``rows`` is true, ``<table class="x">BODY</table>`` in a
    focusable scroll region (narrow screens) labelled by the element ``labelledby`` (the
    table's caption, or a heading); otherwise ``<p class="empty">words</p>`` (``empty_class``
    another class, empty none; no ``empty``: nothing)."""
    bits = token.split_contents()
    if len(bits) < 3:
        raise template.TemplateSyntaxError("datatable takes the rows and labelledby=...")
    options = token_kwargs(bits[2:], parser)
    if "labelledby" not in options or len(options) != len(bits) - 2:
        raise template.TemplateSyntaxError(
            "datatable takes name=value options, labelledby among them"
        )
    body = parser.parse(("enddatatable",))
    parser.delete_first_token()
    return DataTableNode(parser.compile_filter(bits[1]), options, body)


@register.filter
def country_name(code: Any) -> str:
    """An ISO 3166-1 code as the country's name in the active language (django-countries,
    which follows the CLDR/ISO names): ``DE`` -> "Germany" / "Deutschland"; an unknown
    code stays as it is. Remembered per language and code (a club page names the
    countries of hundreds of members; django-countries translates anew on every call)."""
    text = str(code or "")
    return _country_name(text, get_language()) if text else ""


class _CountryNames(dict[str, str]):
    """Country codes to their names in the active language, escaped, each looked up on
    its first use: a table's rows name the same few countries hundreds of times."""

    def __missing__(self, code: str) -> str:
        name = self[code] = escape(country_name(code))
        return name


@lru_cache(maxsize=4096)
def _country_name(code: str, language: str | None) -> str:
    return str(countries.name(code.upper())) or code
