"""German pages: the catalogue is complete and compiled, and the main pages speak German.

``locale/de/LC_MESSAGES/django.po`` is the source; ``django.mo`` is committed next to it
(CI need not have gettext). These tests check that every message is translated, that the
committed ``.mo`` says what the ``.po`` says, and that the main pages requested in German
(``Accept-Language: de`` or the ``set_language`` view) show German and no English
fallback: no English message of the catalogue may appear in their text.
"""

from __future__ import annotations

import ast
import datetime as dt
import gettext
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from matches import clock
from matches.disciplines import DISCIPLINES
from matches.models import Match
from rankings.services.close import month_close
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory
from tests.rankings.factories import after_deadline, submit_table

LOCALE = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES"


def _unquote(text: str) -> str:
    return ast.literal_eval(text)


def catalogue() -> list[dict[str, Any]]:
    """The .po's entries: msgid, optional msgctxt and msgid_plural, msgstr(s), flags."""
    entries = []
    for block in (LOCALE / "django.po").read_text(encoding="utf-8").split("\n\n"):
        entry: dict[str, Any] = {"flags": "", "msgstr": {}}
        key, index = None, 0
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] += line
                continue
            if line.startswith("#"):
                continue
            found = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (\".*\")$", line)
            if found:
                key = found.group(1)
                index = int(found.group(2) or 0)
                value = _unquote(found.group(3))
            elif line.startswith('"') and key:
                value = _unquote(line)
            else:
                continue
            if key.startswith("msgstr"):
                entry["msgstr"][index] = entry["msgstr"].get(index, "") + value
            else:
                entry[key] = entry.get(key, "") + value
        if entry.get("msgid"):
            entries.append(entry)
    return entries


def test_every_message_is_translated_and_none_is_fuzzy() -> None:
    entries = catalogue()
    assert len(entries) > 300
    untranslated = [e["msgid"] for e in entries if not all(e["msgstr"].values())]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e["flags"]]
    assert not untranslated, untranslated
    assert not fuzzy, fuzzy
    for e in entries:  # German plurals: one form for 1, one for the rest
        assert len(e["msgstr"]) == (2 if "msgid_plural" in e else 1), e["msgid"]


def test_placeholders_survive_translation() -> None:
    pattern = re.compile(r"%\(\w+\)[sd]|%\(\w+\)\.2f|\{\w+\}|<[^>]+>")
    for e in catalogue():
        for form, text in e["msgstr"].items():
            # German plurals: msgstr[0] translates msgid (the form for 1), msgstr[1] the
            # msgid_plural (a form for 1 may say "once" with no number in it).
            source = e["msgid_plural"] if form and "msgid_plural" in e else e["msgid"]
            expected = sorted(pattern.findall(source))
            assert sorted(pattern.findall(text)) == expected, (source, text)


def test_the_committed_mo_matches_the_po() -> None:
    with (LOCALE / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for e in catalogue():
        if "msgid_plural" in e:
            assert compiled.ngettext(e["msgid"], e["msgid_plural"], 1) == e["msgstr"][0]
            assert compiled.ngettext(e["msgid"], e["msgid_plural"], 5) == e["msgstr"][1]
        elif "msgctxt" in e:
            assert compiled.pgettext(e["msgctxt"], e["msgid"]) == e["msgstr"][0], e["msgid"]
        else:
            assert compiled.gettext(e["msgid"]) == e["msgstr"][0], e["msgid"]


# --- The pages ------------------------------------------------------------------------------


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style|textarea|svg)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<option\b[^>]*>[^<]*</option>", " ", html)  # the language names
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def english_leaks(text: str) -> list[str]:
    """Catalogue messages (whole sentences or labels, not names) left in English in ``text``."""
    leaks = []
    for e in catalogue():
        for english, german in ((e["msgid"], e["msgstr"][0]), (e.get("msgid_plural"), None)):
            if not english or re.search(r"%|\{|<", english) or len(english) < 8:
                continue
            if german is not None and german == english:
                continue  # the same word in both languages (Muggins, Five Up)
            if " " not in english:
                continue  # single words are too often also data
            if re.search(rf"(?<![\w-]){re.escape(english)}(?![\w-])", text):
                leaks.append(english)
    return leaks


@pytest.fixture
def federation(db: None, monkeypatch: pytest.MonkeyPatch, settings: Any) -> dict[str, Any]:
    """One published FIDO list, a secretary, an admin; the clock in mid-April 2026."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    club = ClubFactory(club_id="CLUB-BER", name="Dominoclub Berlin", country="DE")
    players = [PlayerFactory(club=club) for _ in range(4)]
    submit_table(club, [(players[:1], 40), (players[1:2], 10)], id="t1", date="2026-03-05")
    submit_table(club, [(players[2:3], 9), (players[3:], 3)], id="t2", date="2026-03-09")
    month_close(month="2026-03", discipline="fido", now=after_deadline("2026-03"))
    now = dt.datetime(2026, 4, 15, 12, 0, tzinfo=BERLIN)
    monkeypatch.setattr(clock, "now", lambda: now)
    submit_table(club, [(players[:1], 5), (players[2:3], 7)], id="t3", date="2026-04-02", now=now)
    secretary = SecretaryFactory(club=club).user
    admin = UserFactory(is_staff=True)
    return {"club": club, "player": players[0], "secretary": secretary, "admin": admin}


def pages(federation: dict[str, Any]) -> list[tuple[str, Any, list[str]]]:
    """(path, user or None, German texts the page must show)."""
    player, club = federation["player"], federation["club"]
    match = Match.objects.filter(external_id="t1").get()
    return [
        ("/", None, ["FIDO-Weltrangliste", "Zum Inhalt springen", "Anmelden"]),
        ("/ranking/fido/", None, ["Name oder Spieler-ID", "Platz"]),
        (f"/players/{player.player_id}/", None, ["Ergebnisse, die zählen", "Heimatverein"]),
        (f"/clubs/{club.club_id}/", None, ["Pünktlichkeit der Meldungen", "Mitglieder"]),
        ("/clubs/", None, ["Vereine"]),
        ("/archive/", None, ["Archiv der Ranglisten"]),
        (
            "/records/viewer/?example=fido",
            None,
            ["Spielprotokoll-Betrachter", "Abrechnung der Spielrunde", "Endauslage", "legt"],
        ),
        ("/records/viewer/?example=pulle", None, ["Geld", "Pott:"]),
        (
            f"/matches/{match.pk}/records/",
            federation["secretary"],
            [
                "Spielprotokolle einer Partie",
                "Zu dieser Partie wurden keine Spielprotokolle gemeldet",
            ],
        ),
        ("/accounts/login/", None, ["Benutzername", "Passwort"]),
        (
            "/secretary/",
            federation["secretary"],
            ["Meine Meldungen", "Frist für 2026-04", "pünktlich"],
        ),
        ("/secretary/submit/", federation["secretary"], ["Partie melden", "Spieldatum", "Verein"]),
        ("/secretary/upload/", federation["secretary"], ["CSV-Datei hochladen", "Dateiformat"]),
        (
            "/dashboard/",
            federation["admin"],
            [
                "Zyklus-Dashboard",
                "Offener Monat",
                "Frist",
                "Veröffentlichte Listen",
                "FIDO-Teilerspiel",
            ],
        ),
    ]


@pytest.mark.django_db
def test_main_pages_in_german_by_accept_language(federation: dict[str, Any]) -> None:
    for path, user, expected in pages(federation):
        client = Client(HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
        if user is not None:
            client.force_login(user)
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.content.decode()
        assert '<html lang="de">' in html, path
        text = visible_text(html)
        for german in expected:
            assert german in text, (path, german)
        assert english_leaks(text) == [], path


@pytest.mark.django_db
def test_the_language_switch_sets_german_for_the_following_pages(
    federation: dict[str, Any],
) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert "Game record viewer" in client.get("/records/viewer/").content.decode()
    response = client.post("/i18n/setlang/", {"language": "de", "next": "/records/viewer/"})
    assert response.status_code == 302 and response["Location"] == "/records/viewer/"
    html = client.get("/records/viewer/").content.decode()
    assert '<html lang="de">' in html and "Spielprotokoll-Betrachter" in html
    client.force_login(federation["admin"])
    text = visible_text(client.get("/dashboard/").content.decode())
    assert "Zyklus-Dashboard" in text and english_leaks(text) == []
    # And back to English.
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "Cycle dashboard" in client.get("/dashboard/").content.decode()


@pytest.mark.django_db
def test_dates_have_their_periods_in_german(federation: dict[str, Any]) -> None:
    """Issue 15, item 8: "1. Mai 2026, 00:00", "24. Nov. 2026, 18:30" in German (fido/formats/),
    "1 May 2026, 00:00" in English; the pages name the format, they write no pattern that
    starts with the day or an abbreviated month ("Mär 2026" lacks its period)."""
    pages = {"en": {}, "de": {}}
    for language in pages:
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(federation["secretary"])
        pages[language]["secretary"] = visible_text(client.get("/secretary/").content.decode())
        pages[language]["archive"] = visible_text(client.get("/archive/").content.decode())
    # The deadline of April 2026 (the clock is in mid-April).
    assert "1 May 2026, 00:00 Europe/Berlin" in pages["en"]["secretary"]
    assert "1. Mai 2026, 00:00 Europe/Berlin" in pages["de"]["secretary"]
    # When the March list was published (the real clock's day): the abbreviated month.
    english = r"published \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d\d:"
    german = (
        r"veröffentlicht \d{1,2}\. (Jan\.|Feb\.|März|April|Mai|Juni|Juli|Aug\.|Sept?\.|Okt\."
        r"|Nov\.|Dez\.) \d{4}, \d\d:"
    )
    assert re.search(english, pages["en"]["archive"])
    assert re.search(german, pages["de"]["archive"])
    patterns = [
        f"{path}: {found}"
        for path in Path(settings.BASE_DIR, "templates").rglob("*.html")
        for found in re.findall(r'\|date:"([jdM][^"]*)"', path.read_text())
    ]
    assert patterns == []


@pytest.mark.django_db
def test_the_navigation_names_each_ranking_in_plain_german(federation: dict[str, Any]) -> None:
    """A screen reader reads "Rangliste: Österreichisch", not "Österreichisch Rangliste"; the
    Austrian title is a German phrase, not an adjective tacked on a noun."""
    texts = {}
    for language in ("en", "de"):
        html = Client(HTTP_ACCEPT_LANGUAGE=language).get("/").content.decode()
        texts[language] = re.sub(r"<[^>]+>", "", html)
    assert "Ranking: Austrian" in texts["en"]
    assert "Rangliste: Österreichisch" in texts["de"]
    assert "Österreichisch Rangliste" not in texts["de"]
    with translation.override("de"):
        assert str(DISCIPLINES["austrian"].title) == "Weltrangliste der österreichischen Spiele"
