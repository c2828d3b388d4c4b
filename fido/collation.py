"""Names in the order a reader looks them up (issue 15, item 8: filters sorted by name).

:func:`name_key` orders names ignoring case and accents, as a dictionary or a phone book
does in English and German: "Österreich" between "Niederlande" and "Puerto Rico", not after
"Vereinigte Staaten"; "Dominó" with "Domino". Equal keys keep their order (Python's sort is
stable), so a caller adds its own tie-breaker. Pure: no Django, no locale settings.
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """``name`` without accents and case, for sorting (ß as ss, Æ/æ as ae)."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("æ", "ae")
