"""The rules engine's messages in the user's language, without the engine knowing Django.

Every message the engine raises is written ``_("... %(name)s ...") % {...}`` (or, with a
count, ``ngettext(singular, plural, n) % {...}``): ``_`` marks
the text for ``makemessages`` and translates it through the translator installed with
:func:`install` (the matches app installs Django's ``gettext`` when it starts, so a refusal
is worded in the request's language). Without one installed the text stays English, as in
plain unit tests and scripts.
"""

from __future__ import annotations

from collections.abc import Callable

_translator: Callable[[str], str] = str


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


_plural_translator: Callable[[str, str, int], str] = _english_plural


def install(
    translator: Callable[[str], str], plural: Callable[[str, str, int], str] | None = None
) -> None:
    """Translate every message from now on with ``translator`` (msgid -> text) and, for a
    message with a count, ``plural`` (singular, plural, count -> text)."""
    global _translator, _plural_translator
    _translator = translator
    _plural_translator = plural or _english_plural


def _(message: str) -> str:
    """``message`` in the installed translator's (the active) language."""
    return _translator(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count ``n`` ("1 tile", "2 tiles"), in the active
    language (marked for ``makemessages`` like Django's ``ngettext``)."""
    return _plural_translator(singular, plural, n)
