"""Which text the service accepts at all: one rule for every field of every channel.

In: any ``str`` from outside (a JSON value or key, a query parameter, a form field, a CSV
cell). Out: ``None`` when it is acceptable text, otherwise a short reason in the user's
words naming the offending character by its code point (never the character itself, which
may not even be printable or encodable).

Refused everywhere (issue 16, item 4):
- control characters: C0 except tab, line feed and carriage return (a NUL cannot be stored
  in PostgreSQL text at all), DEL, and the C1 range;
- lone surrogates (U+D800-U+DFFF): not Unicode text; they cannot be encoded as UTF-8, so
  they would fail in the database driver or the JSON renderer;
- the bidirectional embedding, override and isolate controls (U+202A-U+202E,
  U+2066-U+2069): they make an id display differently from what it is ("Trojan Source").

Fields with stricter rules (ids refuse tab and line breaks too) add them on top; see
:func:`matches.validation.check_text`. Reasons are in the active language (English or
German).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from django.utils.translation import gettext, gettext_noop

_BAD = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # controls but \t \n \r
    "|[\ud800-\udfff]"  # lone surrogates (a str holds paired ones as one code point)
    "|[\u202a-\u202e\u2066-\u2069]"  # bidirectional embeddings, overrides, isolates
)

#: The same rule as a JSON-Schema ``pattern`` (ECMA-262 and Python alike): what the API's
#: schema says of every text field and parameter (:mod:`fido.openapi`). Lone surrogates
#: need no place in it: a JSON or URL text that holds one is not UTF-8 and is refused as such.
TEXT_PATTERN = (
    "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f"
    "\\u202a-\\u202e\\u2066-\\u2069]*$"
)

#: Kind of refused character -> its reason (translated when used).
REASONS = {
    "control": gettext_noop("contains a control character (%(char)s)"),
    "surrogate": gettext_noop(
        "contains an unpaired surrogate (%(char)s), which is not valid Unicode text"
    ),
    "bidi": gettext_noop(
        "contains a bidirectional override (%(char)s), which makes text display "
        "differently from what it is"
    ),
    "field": gettext_noop("a field name %(reason)s"),
}


def refused_char(value: str) -> tuple[str, str] | None:
    """(kind, "U+XXXX") of the first refused character of ``value``, or None."""
    found = _BAD.search(value)
    if found is None:
        return None
    code = ord(found.group())
    if 0xD800 <= code <= 0xDFFF:
        kind = "surrogate"
    elif code >= 0x202A:
        kind = "bidi"
    else:
        kind = "control"
    return kind, f"U+{code:04X}"


def text_problem(value: str) -> str | None:
    """The reason ``value`` is refused, or None when it is acceptable."""
    found = first_refused(value)
    return None if found is None else found[1]


def first_refused(value: str) -> tuple[int, str] | None:
    """(index, reason) of the first refused character of ``value``, or None."""
    found = _BAD.search(value)
    if found is None:
        return None
    kind, char = refused_char(found.group())  # type: ignore[misc]
    return found.start(), gettext(REASONS[kind]) % {"char": char}


def _child(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def bad_strings(document: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, reason) for every refused string in a decoded JSON document: values and
    object keys. Paths are shown in the API's form (``sides[1].players[0]``); a refused key
    is named by its position's path with the key's code point, not the key itself.
    Iterative, so a deeply nested document cannot exhaust the stack."""
    stack: list[tuple[str, Any]] = [(path, document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            reason = text_problem(value)
            if reason is not None:
                yield where, reason
        elif isinstance(value, Mapping):
            children = []
            for key, item in value.items():
                key_reason = text_problem(str(key))
                if key_reason is not None:
                    yield where, gettext(REASONS["field"]) % {"reason": key_reason}
                    continue
                children.append((_child(where, key), item))
            stack.extend(reversed(children))  # popped in document order
        elif isinstance(value, list):
            stack.extend(reversed([(_child(where, i), item) for i, item in enumerate(value)]))


def json_text_problems(text: str, document: Any) -> list[tuple[str, str]]:
    """:func:`bad_strings` of ``document``, decoded from the JSON ``text``; without walking
    it when the text can hold no refused character (:func:`json_may_hold_refused`): one
    regex scan instead of a walk over every node of a large game record."""
    if not json_may_hold_refused(text):
        return []
    return list(bad_strings(document))


# The JSON escapes that can decode to a refused character: ``\u`` (any), ``\b`` (U+0008)
# and ``\f`` (U+000C).
_REFUSABLE_ESCAPES = ("\\u", "\\b", "\\f")


def json_may_hold_refused(text: str) -> bool:
    """False when the JSON ``text`` cannot decode to a refused character: none stands in
    it and no escape can give one (True may be a false alarm, e.g. an escaped backslash
    followed by a ``u``)."""
    return any(escape in text for escape in _REFUSABLE_ESCAPES) or _BAD.search(text) is not None


def scrub(value: Any) -> Any:
    """A copy of a JSON-like value whose strings (and keys) hold no refused character
    (each replaced by U+FFFD): what may be stored or rendered whatever went in."""
    if isinstance(value, str):
        return _BAD.sub("\ufffd", value)
    if isinstance(value, Mapping):
        return {scrub(str(k)): scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value
