"""Versions of a month's list (issue 14, item 3, step 1): v1 is the close, v2 an erratum.
The month's URL shows the latest version (short max-age); each version keeps its own URL
(``/vN/`` or ``?version=N``, immutable), a superseded one says so and links the latest."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import IntegrityError, transaction

from matches.audit import recording
from rankings.http_cache import CURRENT_MAX_AGE, IMMUTABLE
from rankings.models import RankingEntry, RankingList
from tests.matches.factories import PlayerFactory

from .conftest import publish, ranking_rows, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions():
    """L(2026-03) v1 (Anna first), then its erratum v2 (Ben first)."""
    cache.clear()
    anna = PlayerFactory(player_id="P-000001", name="Anna Müller", country="DE")
    ben = PlayerFactory(player_id="P-000002", name="Ben Huber", country="AT")
    v1 = publish("2026-03", [(anna, 1, 5000, 3, None), (ben, 2, 4000, 2, None)])
    v2 = publish("2026-03", [(ben, 1, 5100, 3, None), (anna, 2, 5000, 3, None)], version=2)
    yield v1, v2
    cache.clear()


def test_the_month_url_shows_the_latest_version(client, versions) -> None:
    response = client.get("/ranking/fido/2026-03/")
    assert response.status_code == 200
    html = response.content.decode()
    assert ranking_rows(html)[0][2] == "Ben Huber P-000002"
    assert "version 2" in text(html)
    assert 'href="/ranking/fido/2026-03/v1/"' in html  # the previous version
    assert "superseded" not in text(html)
    assert response["Cache-Control"] == f"private, max-age={CURRENT_MAX_AGE}"


@pytest.mark.parametrize("url", ["/ranking/fido/2026-03/v1/", "/ranking/fido/2026-03/?version=1"])
def test_a_superseded_version_keeps_its_url_and_links_the_latest(client, versions, url) -> None:
    response = client.get(url, follow=True)
    assert response.redirect_chain in ([], [("/ranking/fido/2026-03/v1/", 302)])
    html = response.content.decode()
    assert ranking_rows(html)[0][2] == "Anna Müller P-000001"
    assert "This version of the list has been superseded by version 2." in text(html)
    assert 'href="/ranking/fido/2026-03/v2/"' in html
    assert response["Cache-Control"] == IMMUTABLE.replace("public", "private")


def test_the_superseded_notice_speaks_german(client, versions) -> None:
    html = client.get("/ranking/fido/2026-03/v1/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Diese Version der Liste wurde durch Version 2 ersetzt." in text(html)


def test_the_api_serves_each_version(client, versions) -> None:
    latest = client.get("/api/rankings/fido/2026-03").json()
    first = client.get("/api/rankings/fido/2026-03", {"version": 1}).json()
    assert latest["list"]["version"] == 2 and latest["list"]["superseded"] is False
    assert first["list"]["version"] == 1 and first["list"]["superseded"] is True
    assert latest["results"][0]["player_id"] == "P-000002"
    assert first["results"][0]["player_id"] == "P-000001"
    v1_csv = client.get("/api/rankings/fido/2026-03.csv", {"version": 1})
    assert v1_csv["Cache-Control"] == IMMUTABLE
    assert b"P-000001" in b"".join(v1_csv.streaming_content).split(b"\n")[1]


@pytest.mark.parametrize(
    "url,status",
    [
        ("/ranking/fido/2026-03/v3/", 404),
        ("/ranking/fido/2026-03/v0/", 404),
        ("/ranking/fido/2026-04/v1/", 404),
        ("/ranking/fido/2026-03/?version=two", 400),
        ("/api/rankings/fido/2026-03?version=3", 404),
        ("/api/rankings/fido/2026-03?version=0", 400),
        ("/api/rankings/fido/2026-03.csv?version=x", 400),
    ],
)
def test_a_version_that_does_not_exist_is_a_clear_4xx(client, versions, url, status) -> None:
    response = client.get(url)
    assert response.status_code == status, url
    assert "immutable" not in response.get("Cache-Control", "")


def test_a_superseded_list_and_its_entries_never_change(versions) -> None:
    v1, _ = versions
    with pytest.raises(IntegrityError), transaction.atomic():
        RankingList.objects.filter(pk=v1.pk).update(entry_count=7)
    with pytest.raises(IntegrityError), transaction.atomic():
        RankingList.objects.filter(pk=v1.pk).update(status="published")
    with pytest.raises(IntegrityError), transaction.atomic():
        RankingEntry.objects.filter(ranking_list=v1).update(rank=9)
    v1.refresh_from_db()
    assert (v1.status, v1.edition, v1.entry_count) == ("superseded", 1, 2)


def test_two_lists_of_a_month_cannot_share_a_version(versions) -> None:
    v1, _ = versions
    with pytest.raises(IntegrityError), transaction.atomic(), recording():
        RankingList.objects.create(
            discipline="fido", month=v1.month, version=9, edition=1, created_at=v1.created_at
        )
