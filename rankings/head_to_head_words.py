"""The head-to-head tally in plain words, in the reader's language.

In: the two players' names and a :class:`~rankings.selectors.head_to_head.HeadToHead`.
Out: :func:`tally_sentence`, one sentence of four counts (who placed higher, the same
score, partners), each in the form its number takes: "never" for none, "once" for one,
"3 times" for more ("nie", "einmal", "3-mal" in German): the plural forms of the
language's catalogue (``ngettext``), not one phrase with a number in it for every count.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .selectors.head_to_head import HeadToHead


def _higher(name: str, n: int) -> str:
    if not n:
        return _("%(name)s never placed higher") % {"name": name}
    return ngettext("%(name)s placed higher once", "%(name)s placed higher %(n)s times", n) % {
        "name": name,
        "n": n,
    }


def _ties(n: int) -> str:
    if not n:
        return _("never the same score")
    return ngettext("the same score once", "the same score %(n)s times", n) % {"n": n}


def _partners(n: int) -> str:
    if not n:
        return _("never partners on one side")
    return ngettext("partners on one side once", "partners on one side %(n)s times", n) % {"n": n}


def tally_sentence(a: str, b: str, found: HeadToHead) -> str:
    """ "A placed higher once; B placed higher 3 times; never the same score; partners on
    one side 2 times." (counts over every shared match, shown or not)."""
    clauses = [
        _higher(a, found.a_higher),
        _higher(b, found.b_higher),
        _ties(found.ties),
        _partners(found.partners),
    ]
    return "; ".join(clauses) + "."
