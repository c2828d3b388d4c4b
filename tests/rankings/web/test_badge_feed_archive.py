"""The badge, the Atom feed of new lists and the archive."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from matches.audit import recording
from rankings.badges import badge_svg, text_width
from rankings.models import RankingList
from tests.clock import BERLIN
from tests.matches.factories import PlayerFactory

from .conftest import parse_xml, publish, text

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def lists():
    a = PlayerFactory(player_id="P-000012", name="Ana Lima", country="PT")
    b = PlayerFactory(player_id="P-000013", name="Bo Berg", country="SE")
    february = publish("2026-02", [(b, 1, 50000, 4, None), (a, 2, 40000, 3, None)])
    march = publish(
        "2026-03",
        [(b, 1, 50000, 4, 1)]
        + [(PlayerFactory(player_id=f"P-9{r:05d}"), r, 45000 - r, 2, None) for r in range(2, 12)]
        + [(a, 12, 43107, 9, 2)],
    )
    allfives = publish("2026-03", [(a, 1, 1000, 1, None)], discipline="allfives")
    # An attempt that was never published: no reader sees it.
    with recording():
        RankingList.objects.create(
            discipline="fido",
            month=dt.date(2026, 4, 1),
            version=1,
            created_at=dt.datetime.now(BERLIN),
        )
    return february, march, allfives


def badge_text(svg: ET.Element) -> list[str]:
    return [t.text for t in svg.iter(f"{SVG}text") if t.get("aria-hidden") != "true"]


def test_badge_of_a_ranked_player(client: Client, lists) -> None:
    response = client.get("/players/P-000012/badge.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert "max-age=3600" in response["Cache-Control"] and "public" in response["Cache-Control"]
    assert response["X-Content-Type-Options"] == "nosniff"
    svg = parse_xml(response.content)
    assert badge_text(svg) == ["FIDO world rank", "12 · FLADUB 431.07"]
    assert svg.get("aria-label") == "FIDO world rank: 12 · FLADUB 431.07"
    assert svg.find(f"{SVG}title").text == "FIDO world rank: 12 · FLADUB 431.07"


def test_badge_of_another_discipline_and_of_an_unranked_player(client: Client, lists) -> None:
    svg = parse_xml(client.get("/players/P-000012/badge.svg?discipline=allfives").content)
    assert badge_text(svg) == ["All Fives world rank", "1 · FLADUB 10.00"]
    PlayerFactory(player_id="P-000099", name="Newcomer")
    response = client.get("/players/P-000099/badge.svg")
    assert response.status_code == 200
    assert badge_text(parse_xml(response.content)) == ["FIDO world rank", "unranked"]
    svg = parse_xml(client.get("/players/P-000099/badge.svg?discipline=austrian").content)
    assert badge_text(svg)[1] == "unranked"  # no Austrian list at all


def test_badge_bad_discipline_is_400(client: Client, lists) -> None:
    assert client.get("/players/P-000012/badge.svg?discipline=go").status_code == 400


def test_badge_fits_its_text() -> None:
    short = parse_xml(badge_svg("rank", "1"))
    long = parse_xml(badge_svg("FIDO world rank", "1,234 · FLADUB 6,399.99"))
    assert float(long.get("width")) > float(short.get("width"))
    assert float(long.get("width")) >= text_width("FIDO world rank 1,234 · FLADUB 6,399.99")
    assert parse_xml(badge_svg("<&>", '"x"')).find(f"{SVG}title").text == '<&>: "x"'


def test_atom_feed_lists_every_published_list(client: Client, lists) -> None:
    response = client.get("/feeds/lists.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = parse_xml(response.content)
    assert feed.tag == f"{ATOM}feed"
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 3
    titles = [e.find(f"{ATOM}title").text for e in entries]
    assert "FIDO world ranking, March 2026" in titles
    assert "All Fives world ranking, March 2026" in titles
    assert "FIDO world ranking, February 2026" in titles
    links = {e.find(f"{ATOM}link").get("href") for e in entries}
    assert "http://testserver/ranking/fido/2026-03/" in links
    assert "http://testserver/ranking/allfives/2026-03/" in links
    by_title = {e.find(f"{ATOM}title").text: e for e in entries}
    summary = by_title["FIDO world ranking, March 2026"].find(f"{ATOM}summary").text
    assert summary.startswith("12 players ranked. 1. Bo Berg (SE) 500.00; 2. ")
    german = parse_xml(client.get("/feeds/lists.atom", HTTP_ACCEPT_LANGUAGE="de").content)
    summaries = [e.find(f"{ATOM}summary").text for e in german.findall(f"{ATOM}entry")]
    assert any("1. Bo Berg (SE) 500,00; 2. " in s for s in summaries)  # German numbers
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == "http://testserver/feeds/lists.atom"


def test_the_feed_is_discoverable_from_every_page(client: Client, lists) -> None:
    for url in ("/", "/ranking/fido/", "/archive/"):
        html = client.get(url).content.decode()
        assert (
            '<link rel="alternate" type="application/atom+xml" '
            'title="FIDO world ranking: new lists" href="/feeds/lists.atom">'
        ) in html


def test_archive(client: Client, lists) -> None:
    response = client.get("/archive/")
    assert response.status_code == 200
    html = response.content.decode()
    page = text(html)
    assert "3 lists published" in page
    assert 'href="/ranking/fido/2026-03/"' in html
    assert 'href="/ranking/fido/2026-02/"' in html
    assert 'href="/ranking/allfives/2026-03/"' in html
    assert "/ranking/fido/2026-04/" not in html  # never published
    assert "12 players" in page and "2 players" in page
    assert page.index("March 2026") < page.index("February 2026")
    assert "<caption" in html and '<th scope="row"' in html


def test_empty_archive_and_feed(client: Client) -> None:
    assert "No list has been published yet" in text(client.get("/archive/").content.decode())
    feed = parse_xml(client.get("/feeds/lists.atom").content)
    assert feed.findall(f"{ATOM}entry") == []
