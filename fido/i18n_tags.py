"""Django's ``i18n`` template tag library, with ``{% translate "literal" %}`` remembered.

Contract: ``{% load fido_i18n %}`` (``TEMPLATES``' ``libraries``; the project's templates
load it instead of ``i18n``, which Django's system check would not let it replace) gives
every tag and filter of :mod:`django.templatetags.i18n`, unchanged, under the same names;
a ``{% translate %}`` (or ``{% trans %}``) of a string literal with no filter, no
``context``, no ``noop`` and no ``as`` renders what Django's renders, taken from a table by
(active language, literal) after its first rendering in that language.

Why: Django resolves a translated literal to a lazy string and renders it through the
template engine's value path on every request, about 5 microseconds; a player's page has
some 70 of them (its own and base.html's), 0.3 of its 2.9 ms of template rendering
(docs/performance.md). Such a node's output depends on nothing else: the literal is safe
text (never escaped), a string is not localized, and the language's catalogue does not
change while the process runs.
"""

from __future__ import annotations

from typing import Any

from django.template import Library
from django.template.base import Parser, Token
from django.templatetags import i18n as django_i18n
from django.utils import translation

register = Library()
register.tags.update(django_i18n.register.tags)
register.filters.update(django_i18n.register.filters)

_rendered: dict[tuple[str | None, str], str] = {}


class _LiteralTranslateNode(django_i18n.TranslateNode):
    """A ``{% translate "literal" %}`` whose output is kept by language."""

    def render(self, context: Any) -> str:
        key = (translation.get_language(), self.filter_expression.var.literal)
        found = _rendered.get(key)
        if found is None:
            found = _rendered[key] = super().render(context)
        return found


def _translate(parser: Parser, token: Token) -> Any:
    node = django_i18n.do_translate(parser, token)
    expression = node.filter_expression
    if (
        type(node) is django_i18n.TranslateNode
        and not node.noop
        and node.asvar is None
        and node.message_context is None
        and not expression.filters
        and isinstance(getattr(expression.var, "literal", None), str)
    ):
        node.__class__ = _LiteralTranslateNode
    return node


register.tag("translate", _translate)
register.tag("trans", _translate)
