"""``{% load fido_i18n %}`` loads :mod:`fido.i18n_tags`: Django's i18n tags, with a translated
literal remembered per language; everything else renders as Django renders it; the
project's templates load it, not Django's ``i18n``."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import Context, Engine, engines
from django.templatetags import i18n as django_i18n
from django.utils import translation

from fido import i18n_tags


def render(source: str, language: str, **values: object) -> str:
    template = engines["django"].from_string(source)
    with translation.override(language):
        return template.render(values)


def django_render(source: str, language: str, **values: object) -> str:
    """The same source through an engine with Django's own i18n library."""
    engine = Engine(libraries={"fido_i18n": "django.templatetags.i18n"})
    with translation.override(language):
        return engine.from_string(source).render(Context(values))


def test_the_project_loads_this_library_as_fido_i18n() -> None:
    template = engines["django"].from_string("{% load fido_i18n %}")
    assert engines["django"].engine.template_libraries["fido_i18n"] is i18n_tags.register
    assert template.render({}) == ""
    assert set(django_i18n.register.tags) <= set(i18n_tags.register.tags)
    assert set(django_i18n.register.filters) <= set(i18n_tags.register.filters)


def test_a_literal_is_translated_in_each_language_as_django_does() -> None:
    head = '{% load fido_i18n %}{% translate "Archive" %}|{% trans "Log in" %}'
    source = head + '|{% translate "100%% sure" %}'
    for language in ("de", "en", "de", "en"):  # remembered in one, then the other, again
        assert render(source, language) == django_render(source, language)
    assert render(source, "de").split("|")[:2] == ["Archiv", "Anmelden"]
    assert render(source, "en").split("|")[:2] == ["Archive", "Log in"]


def test_only_plain_literals_are_remembered() -> None:
    cases = [
        '{% load fido_i18n %}{% translate "Archive" as word %}[{{ word }}]',
        '{% load fido_i18n %}{% translate "Archive" noop %}',
        '{% load fido_i18n %}{% translate "Archive"|upper %}',
        '{% load fido_i18n %}{% translate "May" context "month name" %}',
        "{% load fido_i18n %}{% translate name %}",
        "{% load fido_i18n %}{% blocktranslate with n=name %}Hello {{ n }}{% endblocktranslate %}",
    ]
    for source in cases:
        for language in ("de", "en"):
            for name in ("Archive", "<b>Log in</b>"):
                assert render(source, language, name=name) == django_render(
                    source, language, name=name
                ), (source, language, name)


def test_the_remembered_node_is_the_plain_literal_one_only() -> None:
    engine = engines["django"].engine
    plain = engine.from_string('{% load fido_i18n %}{% translate "Archive" %}')
    other = engine.from_string('{% load fido_i18n %}{% translate "Archive" as word %}')
    kinds = [type(node).__name__ for node in plain.nodelist + other.nodelist]
    assert "_LiteralTranslateNode" in kinds
    assert kinds.count("_LiteralTranslateNode") == 1


def test_the_projects_templates_load_fido_i18n_not_djangos() -> None:
    root = Path(__file__).resolve().parents[2]
    loads = re.compile(r"\{%\s*load\s+([^%]*)%\}")
    found = []
    folders = [root / "templates", *sorted(root.glob("*/templates"))]
    assert (root / "templates" / "base.html").exists()
    for folder in folders:
        for path in sorted(folder.rglob("*.html")):
            for libraries in loads.findall(path.read_text()):
                if "i18n" in libraries.split():
                    found.append(str(path.relative_to(root)))
    assert found == []
