"""The rules engine's messages in the user's language, without the engine knowing Django.

Every message the engine raises is written ``_("... %(name)s ...") % {...}``: ``_`` marks
the text for ``makemessages`` and translates it through the translator installed with
:func:`install` (the matches app installs Django's ``gettext`` when it starts, so a refusal
is worded in the request's language). Without one installed the text stays English, as in
plain unit tests and scripts.
"""

from __future__ import annotations

from collections.abc import Callable

_translator: Callable[[str], str] = str


def install(translator: Callable[[str], str]) -> None:
    """Translate every message from now on with ``translator`` (msgid -> text)."""
    global _translator
    _translator = translator


def _(message: str) -> str:
    """``message`` in the installed translator's (the active) language."""
    return _translator(message)
