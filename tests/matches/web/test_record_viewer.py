"""The game record viewer (``/records/viewer/``) and a match's records page.

Public pages: anonymous visitors may use them. A legal record is replayed and drawn (every
placed tile once in the SVG, the move list, the results and the settlement); anything else
is refused with the engine's reason and a 4xx status, never a 5xx.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from collections import Counter
from html import unescape
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from matches import services
from matches.apis.records import EXAMPLE_RECORD
from matches.models import Channel, Match
from matches.rules.engine import replay
from matches.rules.simulate import simulate
from matches.views.records import EXAMPLES, MAX_RECORD_BYTES
from tests.matches.factories import (
    ClubFactory,
    PlayerFactory,
    SecretaryFactory,
    UserFactory,
    match_payload,
)

URL = "/records/viewer/"


def text(html: str) -> str:
    """The page's text, tags dropped and white space collapsed (what a user reads)."""
    html = re.sub(r"</?(?:code|small|strong|em|span|a|time)\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# RULES.md section 2 style: a three-player double-6 game that ends with A's last tile.
RECORD: dict[str, Any] = EXAMPLE_RECORD


def tiles_in_svg(html: str) -> list[Counter[str]]:
    """Per drawn game, how often each tile label appears as a drawn tile."""
    return [
        Counter(re.findall(r'<g class="tile[^"]*" data-tile="([0-9]+-[0-9]+)"', svg))
        for svg in re.findall(r"<svg\b.*?</svg>", html, re.S)
    ]


def placed_per_game(record: dict[str, Any]) -> list[Counter[str]]:
    return [
        Counter(m["tile"] for m in game["moves"] if "tile" in m) for game in replay(record)["games"]
    ]


def post(client: Client, **data: Any):
    return client.post(URL, data)


# --- Access -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_gets_the_form_with_a_csrf_token_and_the_examples(client: Client) -> None:
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="record"' in html and 'type="file"' in html
    for game in EXAMPLES:
        assert f'name="example" value="{game}"' in html
    assert "<svg" not in html


@pytest.mark.django_db
def test_a_post_without_the_csrf_token_is_refused() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(URL, {"record": json.dumps(RECORD)})
    assert response.status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "user", "staff"])
def test_everybody_may_replay(client: Client, who: str) -> None:
    if who != "anonymous":
        client.force_login(UserFactory(is_staff=who == "staff"))
    response = post(client, record=json.dumps(RECORD))
    assert response.status_code == 200


# --- A legal record -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_pasted_record_is_drawn_with_its_moves_results_and_settlement(client: Client) -> None:
    response = post(client, record=json.dumps(RECORD))
    assert response.status_code == 200
    html = response.content.decode()
    assert tiles_in_svg(html) == placed_per_game(RECORD)
    report = replay(RECORD)
    page = text(html)
    # The move list: every move with its count and points (move 3: 6-5 on a cross side,
    # S = 6 + 6 + 3 + 5 = 20, not a multiple of 3).
    rows = re.findall(r'<tr class="move-[a-z]+[^"]*">(.*?)</tr>', html, re.S)
    assert len(rows) == len(RECORD["moves"])
    for row, entry in zip(rows, report["games"][0]["moves"], strict=True):
        cells = [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert cells[0] == str(entry["n"]) and cells[1] == entry["player"]
        if "tile" in entry:
            assert cells[3] == entry["tile"]
            assert cells[5] == str(entry["count"]) and cells[6] == str(entry["points"])
    assert "6-6 cross side" in page
    # Results and the settlement: A went out; finals are points minus pips, B scored most.
    for seat, row in report["games"][0]["players"].items():
        won = " won" if seat in report["games"][0]["winners"] else ""
        assert f"{seat}{won} {row['points']} {row['pips_left']} {row['final']}" in page
    assert report["session"]["winners"] == ["B"]
    assert "Winners: B." in page
    assert "Money" not in page  # no money in a FIDO game


@pytest.mark.django_db
@pytest.mark.parametrize("game", sorted(EXAMPLES))
def test_every_example_draws_every_placed_tile_once(client: Client, game: str) -> None:
    for seed in (1, 2, 3):
        response = client.get(URL, {"example": game, "seed": seed})
        assert response.status_code == 200
        html = response.content.decode()
        record = simulate(game, seed=seed, **EXAMPLES[game]).record
        assert tiles_in_svg(html) == placed_per_game(record)
        # The record itself is in the text box, ready to edit and replay.
        assert (
            json.loads(
                re.search(r"<textarea[^>]*>(.*?)</textarea>", html, re.S)
                .group(1)
                .replace("&quot;", '"')
            )
            == record
        )
        if game in {"buki", "pulle"}:
            assert "Money" in html  # the session's money is settled
            report = replay(record)
            for row in report["session"]["players"].values():
                assert row["money"] in text(html)


@pytest.mark.django_db
def test_an_unknown_example_is_a_400(client: Client) -> None:
    assert client.get(URL, {"example": "chess"}).status_code == 400
    # A bad seed falls back to the default deal rather than failing.
    assert client.get(URL, {"example": "fido", "seed": "x"}).status_code == 200


@pytest.mark.django_db
def test_an_uploaded_file_is_replayed_and_shown_in_the_text_box(client: Client) -> None:
    upload = SimpleUploadedFile("game.json", json.dumps(RECORD).encode(), "application/json")
    response = client.post(URL, {"file": upload, "record": ""})
    assert response.status_code == 200
    html = response.content.decode()
    assert tiles_in_svg(html) == placed_per_game(RECORD)
    assert "&quot;6-6&quot;" in html  # the uploaded text, now editable


@pytest.mark.django_db
def test_partial_shows_an_unfinished_game_that_is_refused_otherwise(client: Client) -> None:
    record = copy.deepcopy(RECORD)
    record["moves"] = record["moves"][:5]
    refused = post(client, record=json.dumps(record))
    assert refused.status_code == 400
    assert "stops before the game ends" in text(refused.content.decode())
    shown = post(client, record=json.dumps(record), partial="on")
    assert shown.status_code == 200
    assert "unfinished" in text(shown.content.decode())
    assert tiles_in_svg(shown.content.decode()) == [Counter({"6-6": 1, "6-3": 1, "6-5": 1})]


# --- Refusals -----------------------------------------------------------------------------


def refusal(html: str) -> str:
    found = re.search(r'<div class="errors refusal" role="alert"[^>]*>(.*?)</div>', html, re.S)
    assert found, "no refusal shown"
    return text(found.group(1))


@pytest.mark.django_db
def test_an_illegal_move_is_a_400_with_move_player_path_and_reason(client: Client) -> None:
    record = copy.deepcopy(RECORD)
    record["moves"][1]["facet"] = "end"  # the second tile must go on a cross side
    response = post(client, record=json.dumps(record))
    assert response.status_code == 400
    shown = refusal(response.content.decode())
    assert "Game 1" in shown and "Move 2" in shown and "Player B" in shown
    assert "games[0].moves[1]" in shown
    assert 'the second tile goes on a cross side of 6-6 (facet "cross")' in shown
    assert "second-not-on-cross" in shown
    assert "<svg" not in response.content.decode()


@pytest.mark.django_db
def test_a_move_by_the_wrong_player_names_the_rule(client: Client) -> None:
    record = copy.deepcopy(RECORD)
    record["moves"][6]["player"] = "B"
    response = post(client, record=json.dumps(record))
    assert response.status_code == 400
    shown = refusal(response.content.decode())
    assert "Move 7" in shown and "it is A's turn" in shown and "out-of-turn" in shown


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mutate", "path", "reason"),
    [
        (lambda r: r["moves"][2].update(tiel="6-5"), "moves[2].tiel", "not a field"),
        (lambda r: r["hands"]["C"].append("9-9"), "hands.C[2]", "not in the double-6 set"),
        (lambda r: r["variant"].update(game="chess"), "variant.game", "unknown game 'chess'"),
        (lambda r: r.update(seats=["A"]), "seats", "at least two"),
    ],
)
def test_a_document_that_is_not_a_record_names_the_field(
    client: Client, mutate: Any, path: str, reason: str
) -> None:
    record = copy.deepcopy(RECORD)
    mutate(record)
    response = post(client, record=json.dumps(record))
    assert response.status_code == 400
    shown = refusal(response.content.decode())
    assert path in shown and reason in shown


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("", "Paste a game record or choose a file first"),
        ("   ", "Paste a game record or choose a file first"),
        ('{"variant": ', "not valid JSON"),
        ("[1, 2]", "a game record is a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"variant": {"game": "fido", "set": 6}, "seats": "AB"}', "seats"),
    ],
)
def test_bad_text_is_a_400_with_a_reason(client: Client, body: str, reason: str) -> None:
    response = post(client, record=body)
    assert response.status_code == 400
    assert reason in refusal(response.content.decode())


@pytest.mark.django_db
def test_a_file_that_is_not_utf8_is_a_400(client: Client) -> None:
    upload = SimpleUploadedFile("game.json", b"\xff\xfe\x00{", "application/json")
    response = client.post(URL, {"file": upload})
    assert response.status_code == 400
    assert "not UTF-8" in refusal(response.content.decode())


@pytest.mark.django_db
def test_too_large_records_are_a_413(client: Client) -> None:
    big = json.dumps({**RECORD, "pad": "x" * MAX_RECORD_BYTES})
    response = post(client, record=big)
    assert response.status_code == 413
    assert "too large" in refusal(response.content.decode())
    upload = SimpleUploadedFile("game.json", big.encode(), "application/json")
    response = client.post(URL, {"file": upload})
    assert response.status_code == 413


# --- A stored match's records --------------------------------------------------------------


def _with_seats(record: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The record with its seat names replaced (A -> P-000001...)."""
    out = copy.deepcopy(record)
    out["seats"] = [names[s] for s in out["seats"]]
    out["hands"] = {names[s]: h for s, h in out["hands"].items()}
    for move in out["moves"]:
        move["player"] = names[move["player"]]
    return out


@pytest.fixture
def stored_match(db: None) -> Match:
    club = ClubFactory()
    players = [PlayerFactory() for _ in range(3)]
    record = _with_seats(RECORD, dict(zip("ABC", (p.player_id for p in players), strict=True)))
    totals = replay(record)["session"]["players"]
    sides = [([p], totals[p.player_id]["total"]) for p in players]
    # An id with a hyphen: the 404 test asserts it is absent from the page, and a short
    # alphanumeric id ("t1") can turn up by chance inside the page's random CSRF token.
    payload = match_payload(club, sides, id="night-14", date="2026-03-14", records=[record])
    outcome = services.match_submit(
        club=None,
        payload=payload,
        submitted_by=UserFactory(is_staff=True),
        now=dt.datetime(2026, 3, 20, 12, tzinfo=dt.UTC),
        channel=Channel.WEB,
    )
    return outcome.match


@pytest.fixture
def client(stored_match: Match) -> Client:
    """A secretary of the match's club, logged in (a match's records are private)."""
    client = Client()
    client.force_login(SecretaryFactory(club=stored_match.club).user)
    return client


@pytest.mark.django_db
def test_a_stored_matchs_records_are_drawn_for_its_club(
    client: Client, stored_match: Match
) -> None:
    response = client.get(reverse("matches:match_records", args=[stored_match.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    record = stored_match.records[0]
    assert tiles_in_svg(html) == placed_per_game(record)
    page = text(html)
    for member in stored_match.members.select_related("player"):
        assert member.player.name in page  # seats shown with the players' names
    assert stored_match.external_id in page


@pytest.mark.django_db
def test_a_match_without_records_says_so_and_an_unknown_match_is_404(
    client: Client, stored_match: Match
) -> None:
    Match.objects.filter(pk=stored_match.pk).update(records=None)
    response = client.get(reverse("matches:match_records", args=[stored_match.pk]))
    assert response.status_code == 200
    assert "No game records were submitted with this match" in text(response.content.decode())
    assert client.get(reverse("matches:match_records", args=[10**9])).status_code == 404


@pytest.mark.django_db
def test_a_stored_record_the_engine_now_refuses_is_shown_as_refused(
    client: Client, stored_match: Match
) -> None:
    broken = copy.deepcopy(stored_match.records)
    broken[0]["moves"][1]["facet"] = "end"
    Match.objects.filter(pk=stored_match.pk).update(records=broken)
    response = client.get(reverse("matches:match_records", args=[stored_match.pk]))
    assert response.status_code == 200  # the page exists; the record is what is wrong
    assert "records[0].games[0].moves[1]" in refusal(response.content.decode())


@pytest.mark.django_db
def test_a_buki_session_shows_its_banker_and_stakes(client: Client) -> None:
    record = simulate("buki", seed=1, **EXAMPLES["buki"]).record
    page = text(client.get(URL, {"example": "buki"}).content.decode())
    stakes = record["stakes"]
    assert f"Banker {record['banker']}" in page
    assert f"stakes: min {stakes['min']}, max {stakes['max']}" in page


# --- Private stays private (issue 16, item 6) -----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "player", "other_secretary"])
def test_strangers_get_the_404_of_an_unknown_match(stored_match: Match, who: str) -> None:
    stranger = Client()
    if who == "player":
        stranger.force_login(UserFactory())
    elif who == "other_secretary":
        stranger.force_login(SecretaryFactory(club=ClubFactory()).user)
    url = reverse("matches:match_records", args=[stored_match.pk])
    response = stranger.get(url)
    unknown = stranger.get(reverse("matches:match_records", args=[10**9]))
    assert response.status_code == unknown.status_code == 404
    assert stored_match.external_id not in response.content.decode()


@pytest.mark.django_db
def test_an_admin_reads_every_clubs_records(stored_match: Match) -> None:
    admin = Client()
    admin.force_login(UserFactory(is_staff=True))
    response = admin.get(reverse("matches:match_records", args=[stored_match.pk]))
    assert response.status_code == 200
    assert stored_match.external_id in text(response.content.decode())


@pytest.mark.django_db
def test_a_voided_matchs_reason_is_never_shown_to_strangers(stored_match: Match) -> None:
    club_url = reverse("rankings:club", args=[stored_match.club.club_id])
    assert "2026-03-14" in text(Client().get(club_url).content.decode())  # listed while valid
    services.match_void(
        match=stored_match,
        by=UserFactory(is_staff=True),
        reason="secret reason 4711",
        now=dt.datetime(2026, 3, 21, 12, tzinfo=dt.UTC),
    )
    url = reverse("matches:match_records", args=[stored_match.pk])
    assert Client().get(url).status_code == 404
    club_page = Client().get(club_url)
    assert club_page.status_code == 200
    assert "secret reason 4711" not in club_page.content.decode()
    assert "2026-03-14" not in text(club_page.content.decode())  # the voided match is gone
