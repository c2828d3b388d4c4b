"""A published list's download keeps the names and countries it was published with: a
player renamed afterwards (matches/services/players.py) leaves every earlier list's bytes,
its seal and its verification as they were, and appears under the new name from the next
list on (rankings/selectors/list_export.py, ``published_names``)."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.test import Client

from matches.models import Player
from matches.services.players import player_details_change
from rankings.models import RankingList
from rankings.selectors.list_export import published_names
from tests.matches.factories import AdminFactory
from tests.rankings.factories import close, submit_table
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def rename(player: Player, name: str, country: str | None = None) -> None:
    player_details_change(
        player=player,
        name=name,
        country=country or player.country,
        by=AdminFactory(),
        reason="the registry says so",
    )


def download(month: str, version: int | None = None) -> bytes:
    query = f"?version={version}" if version else ""
    response = Client().get(f"/api/rankings/fido/{month}.csv{query}")
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def names_in(csv: bytes) -> dict[str, tuple[str, str]]:
    """federation id -> (name, country) of a download (the names here hold no comma)."""
    rows = [line.split(",") for line in csv.decode().splitlines()[1:]]
    return {row[1]: (row[2], row[3]) for row in rows}


def test_a_rename_after_the_close_leaves_the_download_its_seal_and_its_check(
    march_results,  # noqa: F811
) -> None:
    _a, _b, c, _d = march_results
    march = close("2026-03")
    before = download("2026-03")
    assert hashlib.sha256(before).hexdigest() == march.content_sha256
    rename(c, "Cy Gruber", "AT")

    after = download("2026-03")
    assert after == before
    assert names_in(after)["P-000003"] == ("Cy", "DE")
    assert run("export_ranking", "2026-03")[0].encode() == before
    assert "verified" in run("verify_list", "2026-03", "--discipline", "fido")[0]
    # The pages show the player as they are now (and a search by name finds them so).
    assert "Cy Gruber" in Client().get("/ranking/fido/2026-03/").content.decode()


def test_each_list_shows_the_names_of_its_own_publication(march_results) -> None:  # noqa: F811
    a, _b, c, _d = march_results
    march = close("2026-03")
    rename(c, "Cy Second")
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    april = close("2026-04")
    rename(c, "Cy Third", "AT")
    rename(c, "Cy Fourth", "CH")

    assert names_in(download("2026-03"))["P-000003"] == ("Cy", "DE")
    assert names_in(download("2026-04"))["P-000003"] == ("Cy Second", "DE")
    for ranking_list in (march, april):
        stored = RankingList.objects.get(pk=ranking_list.pk)
        assert hashlib.sha256(download(stored.month.strftime("%Y-%m"))).hexdigest() == (
            stored.content_sha256
        )
    assert published_names(march.published_at) == {c.pk: ("Cy", "DE")}
    assert published_names(april.published_at) == {c.pk: ("Cy Second", "DE")}
    assert published_names(None) == {}

    may = close("2026-05")
    assert names_in(download("2026-05"))["P-000003"] == ("Cy Fourth", "CH")
    assert "verified" in run("verify_list", "2026-05")[0]
    assert "verified" in run("verify_list", "2026-04")[0]
    assert may.content_sha256 == hashlib.sha256(download("2026-05")).hexdigest()


def test_the_json_download_keeps_the_published_names_too(march_results) -> None:  # noqa: F811
    _a, _b, c, _d = march_results
    close("2026-03")
    rename(c, "Cy Gruber", "AT")
    response = Client().get("/api/rankings/fido/2026-03.json")
    rows = {row["player_id"]: row for row in json.loads(b"".join(response.streaming_content))}
    assert (rows["P-000003"]["name"], rows["P-000003"]["country"]) == ("Cy", "DE")
