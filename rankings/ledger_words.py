"""A ledger (:mod:`rankings.selectors.ledger`) in plain sentences, in the reader's language.

In: a :class:`~rankings.selectors.ledger.PlayerLedger`. Out: :func:`part_sentences`, one
phrase per part ("+3.20 from 2 new results", "-0.40 a result of May 2025 left the
window"), :func:`number_sentence` (the change as one sentence) and :func:`rank_sentence`
(the change of rank explained). Amounts are signed, with the locale's decimal mark;
months are written out. Used by the player page and the ledger API (its ``sentences``).
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from .ledger import Part, RankChange
from .selectors.ledger import PlayerLedger


def signed(cents: int) -> str:
    """``+3.20`` / ``-1.10`` (``+3,20`` in German)."""
    amount = number_format(Decimal(abs(cents)) / 100, 2)
    return ("-" if cents < 0 else "+") + amount


# A part's phrase for one result and for several (German plurals are the same split).
_ONE_OR_MANY = {
    "aged": (
        gettext_lazy("%(amount)s as an older result aged"),
        gettext_lazy("%(amount)s as %(n)s older results aged"),
    ),
    "left": (
        gettext_lazy("%(amount)s a result of %(month)s left the window"),
        gettext_lazy("%(amount)s %(n)s results of %(month)s left the window"),
    ),
    "voided": (
        gettext_lazy("%(amount)s as a result was voided or corrected"),
        gettext_lazy("%(amount)s as %(n)s results were voided or corrected"),
    ),
    "pushed_out": (
        gettext_lazy("%(amount)s as a result dropped out of the best 20"),
        gettext_lazy("%(amount)s as %(n)s results dropped out of the best 20"),
    ),
    "pushed_in": (
        gettext_lazy("%(amount)s as an older result came back into the best 20"),
        gettext_lazy("%(amount)s as %(n)s older results came back into the best 20"),
    ),
}


def _part_words(part: Part[int], found: PlayerLedger) -> str:
    n = len(part.results)
    values = {"amount": signed(part.cents), "n": n}
    if part.kind == "new":
        return (
            ngettext("%(amount)s from %(n)s new result", "%(amount)s from %(n)s new results", n)
            % values
        )
    phrases = _ONE_OR_MANY.get(part.kind)
    if phrases is not None:
        if part.kind == "left":
            values["month"] = date_format(found.left_month.first_day, "F Y")
        return str(phrases[0] if n == 1 else phrases[1]) % values
    return (
        _("%(amount)s from merged player records or changes since the list was published") % values
    )


def part_sentences(found: PlayerLedger) -> list[str]:
    """One phrase per part, in the ledger's order; parts of 0.00 naming no result are left
    out (their phrase would say nothing)."""
    return [_part_words(part, found) for part in found.ledger.parts if part.cents or part.results]


def number_sentence(found: PlayerLedger) -> str:
    """The whole change: "FLADUB 12.30 → 14.40 (+2.10): +3.20 from 2 new results; …"."""
    head = _("FLADUB %(from)s → %(to)s (%(change)s)") % {
        "from": number_format(Decimal(found.from_cents) / 100, 2),
        "to": number_format(Decimal(found.to_cents) / 100, 2),
        "change": signed(found.ledger.change_cents),
    }
    parts = part_sentences(found)
    return f"{head}: {'; '.join(parts)}." if parts else f"{head}."


def rank_sentence(rank: RankChange) -> str:
    """The change of rank, explained when the counts were taken."""
    if rank.rank_from is None and rank.rank_to is None:
        return _("Not on either list.")
    if rank.rank_from is None:
        return _("New on the list, at rank %(rank)s.") % {"rank": rank.rank_to}
    if rank.rank_to is None:
        return _("Not on the list any more (rank %(rank)s before).") % {"rank": rank.rank_from}
    head = _("Rank %(from)s → %(to)s") % {"from": rank.rank_from, "to": rank.rank_to}
    if not rank.explained:
        return f"{head}."
    # ngettext, not ngettext_lazy: a lazy plural builds a class on every call (four a
    # sentence, two sentences on every player's page); the calls stay literal for
    # makemessages.
    counted = [
        (
            rank.passed,
            ngettext("%(n)s player passed you", "%(n)s players passed you", rank.passed),
        ),
        (
            rank.new_above,
            ngettext(
                "%(n)s new player entered above you",
                "%(n)s new players entered above you",
                rank.new_above,
            ),
        ),
        (
            rank.overtaken,
            ngettext("you passed %(n)s player", "you passed %(n)s players", rank.overtaken),
        ),
        (
            rank.gone_above,
            ngettext(
                "%(n)s player above you left the list",
                "%(n)s players above you left the list",
                rank.gone_above,
            ),
        ),
    ]
    pieces = [words % {"n": n} for n, words in counted if n]
    if not pieces:
        return _("%(head)s: nobody passed you and you passed nobody.") % {"head": head}
    return f"{head}: {'; '.join(pieces)}."
