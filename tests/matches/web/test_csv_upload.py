"""CSV upload: preview through the one validation path (nothing stored), confirm stores all."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from matches.csv_upload import MAX_BYTES, MAX_ROWS, CsvRejected, read_csv
from matches.models import Channel, Match, Submission
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory

from .conftest import counts, text

pytestmark = pytest.mark.django_db

HEADER = "id,date,discipline,category,side,players,score\n"
GOOD = (
    HEADER
    + "CLUB-7/2026-03-14/t1,2026-03-14,fido,club,1,P-000001,57\n"
    + "CLUB-7/2026-03-14/t1,2026-03-14,fido,club,2,P-000002,31\n"
    + "CLUB-7/2026-03-14/t1,2026-03-14,fido,club,3,P-000003,31\n"
    + "CLUB-7/2026-03-14/t1,2026-03-14,fido,club,4,P-000004,-4\n"
    + "CLUB-7/2026-03-14/t2,2026-03-14,allfives,league,1,P-000005;P-000006,150\n"
    + "CLUB-7/2026-03-14/t2,2026-03-14,allfives,league,2,P-000007+P-000008,120\n"
)


def upload(client: Client, content: bytes | str, name: str = "results.csv", club: str = "CLUB-7"):
    data = content.encode() if isinstance(content, str) else content
    return client.post(
        "/secretary/upload/",
        {"club": club, "file": SimpleUploadedFile(name, data, content_type="text/csv")},
    )


def token_of(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found, "no confirm form"
    return found.group(1)


def test_the_page_documents_the_format_with_a_template(sec_client: Client) -> None:
    page = sec_client.get("/secretary/upload/").content.decode()
    assert "id,date,discipline,category,side,players,score" in page
    assert 'href="/secretary/upload/template.csv?club=CLUB-7"' in page
    response = sec_client.get("/secretary/upload/template.csv?club=CLUB-7")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    body = response.content.decode()
    assert body.startswith("id,date,discipline,category,side,players,score\r\n")
    assert "CLUB-7/2026-03-20/t1,2026-03-20,fido,club,4,P-000004,-4" in body


def test_the_template_file_itself_passes(sec_client: Client, players) -> None:
    template = sec_client.get("/secretary/upload/template.csv").content
    response = upload(sec_client, template)
    assert response.status_code == 200, text(response.content.decode())[:2000]
    assert 'name="token"' in response.content.decode()


def test_preview_of_a_clean_file_shows_status_and_stores_nothing(
    sec_client: Client, players
) -> None:
    before = counts()
    response = upload(sec_client, GOOD)
    assert response.status_code == 200
    assert counts() == before
    page = text(response.content.decode())
    assert "2 matches in 6 rows." in page
    assert "2 new matches (2 on time, 0 late)." in page
    assert "already stored" not in page
    assert "counts in 2026-03" in page
    assert "Store 2 new matches" in page


def test_a_re_upload_says_what_is_new_and_stores_only_that(sec_client: Client, players) -> None:
    """Issue 15, item 3: no "2 already stored" next to "Store 2 matches"."""
    sec_client.post(
        "/secretary/upload/", {"token": token_of(upload(sec_client, GOOD).content.decode())}
    )
    assert Match.objects.count() == 2
    again = text(upload(sec_client, GOOD).content.decode())
    assert "0 new matches (0 on time, 0 late); 2 already stored with the same content" in again
    assert "Nothing to store: every match of this file is already stored" in again
    assert "Store" not in again.split("Nothing to store")[0].split("Preview for")[1]
    extra = "CLUB-7/2026-03-15/t9,2026-03-15,fido,club,1,P-000001,5\n" + (
        "CLUB-7/2026-03-15/t9,2026-03-15,fido,club,2,P-000002,3\n"
    )
    mixed = text(upload(sec_client, GOOD + extra).content.decode())
    assert "1 new match (1 on time, 0 late); 2 already stored with the same content" in mixed
    assert "Store 1 new match" in mixed


def team(players, *indexes: int) -> str:
    """A side's players as the conflict table shows them: "P-000005 Name + P-000006 Name"."""
    return " + ".join(f"{players[i].player_id} {players[i].name}" for i in indexes)


def conflict_rows(html: str, key: int) -> list[tuple[str, str, str, bool]]:
    """The rows of one conflict table: (field, stored, in the file, marked as differing)."""
    table = re.search(
        rf'<table class="conflict-table" id="conflict-{key}">(.*?)</table>', html, re.S
    )
    assert table, f"no conflict table {key}"
    rows = re.findall(
        r"<tr( class=\"differs\")?>\s*<th scope=\"row\">(.*?)</th>\s*<td>(.*?)</td>"
        r"\s*<td>(.*?)</td>",
        table.group(1),
        re.S,
    )
    return [
        (text(re.sub(r'<span class="tag.*?</span>', "", label)), text(old), text(new), bool(mark))
        for mark, label, old, new in rows
    ]


def test_a_conflicting_match_is_shown_side_by_side_and_left_as_stored(
    sec_client: Client, players
) -> None:
    """Issue 15, item 3: same id, other content: stored and file side by side, the differing
    fields marked; the button says it stores the new match and leaves the conflict."""
    sec_client.post(
        "/secretary/upload/", {"token": token_of(upload(sec_client, GOOD).content.decode())}
    )
    stored_t2 = Match.objects.get(external_id="CLUB-7/2026-03-14/t2")
    changed = GOOD.replace("P-000007+P-000008,120", "P-000007+P-000008,121") + (
        "CLUB-7/2026-03-15/t9,2026-03-15,fido,club,1,P-000001,5\n"
        "CLUB-7/2026-03-15/t9,2026-03-15,fido,club,2,P-000002,3\n"
    )
    before = counts()
    response = upload(sec_client, changed)
    assert response.status_code == 200
    assert counts() == before
    html = response.content.decode()
    page = text(html)
    assert "1 new match (1 on time, 0 late); 1 already stored with the same content" in page
    assert "1 match is already stored with other content: see below." in page
    assert "Match CLUB-7/2026-03-14/t2 (from row 6)" in page
    assert f'href="/secretary/matches/{stored_t2.pk}/correct/"' in html
    assert conflict_rows(html, 1) == [
        ("date", "2026-03-14", "2026-03-14", False),
        ("discipline", "allfives", "allfives", False),
        ("category", "league", "league", False),
        ("side 1: players", team(players, 4, 5), team(players, 4, 5), False),
        ("side 1: score", "150", "150", False),
        ("side 2: players", team(players, 6, 7), team(players, 6, 7), False),
        ("side 2: score", "120", "121", True),
    ]
    assert "<mark>120</mark>" in html and "<mark>121</mark>" in html
    assert "Store 1 new match; leave 1 conflicting match as stored" in page

    done = sec_client.post("/secretary/upload/", {"token": token_of(html)}, follow=True)
    assert (
        "1 match stored from the CSV file (1 on time, 0 late). 1 was already stored and was"
        " skipped. 1 conflicting match was left as stored. Counting month: 2026-03."
        in text(done.content.decode())
    )
    assert Match.objects.count() == 3
    assert Match.objects.filter(external_id="CLUB-7/2026-03-14/t2").count() == 1
    assert list(stored_t2.sides.order_by("position").values_list("score", flat=True)) == [150, 120]


def test_a_file_of_only_stored_and_conflicting_matches_offers_nothing_to_store(
    sec_client: Client, players
) -> None:
    sec_client.post(
        "/secretary/upload/", {"token": token_of(upload(sec_client, GOOD).content.decode())}
    )
    changed = GOOD.replace(
        "2026-03-14,fido,club,4,P-000004,-4", "2026-03-14,fido,club,4,P-000004,-5"
    )
    response = upload(sec_client, changed)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="token"' not in html
    assert (
        "Nothing to store: every match of this file is already stored, some with other content"
        in text(html)
    )
    assert [r for r in conflict_rows(html, 0) if r[3]] == [("side 4: score", "-4", "-5", True)]


def test_the_conflict_is_shown_in_german(sec_client: Client, players) -> None:
    sec_client.post(
        "/secretary/upload/", {"token": token_of(upload(sec_client, GOOD).content.decode())}
    )
    changed = GOOD.replace(
        "allfives,league,1,P-000005;P-000006,150", "allfives,league,1,P-000005;P-000001,150"
    )
    sec_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    html = upload(sec_client, changed).content.decode()
    page = text(html)
    assert "Bereits mit anderem Inhalt gespeichert" in page
    assert "Gespeichert" in page and "In dieser Datei" in page
    assert [r for r in conflict_rows(html, 1) if r[3]] == [
        ("Seite 1: Spieler", team(players, 4, 5), team(players, 4, 0), True),
    ]


def test_preview_shows_every_problem_by_row_and_column_and_stores_nothing(
    sec_client: Client, players, set_now
) -> None:
    content = (
        HEADER
        + "a1,2026-03-14,fido,club,1,P-000001,57\n"
        + "a1,2026-03-14,fido,club,2,P-999999,31\n"  # row 3: unknown player
        + "b1,2026-03-14,fido,club,1,P-000003,x\n"  # row 4: not a number
        + "b1,2026-03-14,fido,club,2,P-000003,1\n"  # row 5: the same player again
        + "c1,2026-03-25,fido,club,1,P-000001,1\n"  # rows 6-7: in the future
        + "c1,2026-03-25,fido,club,2,P-000002,0\n"
        + "d1,2026-03-14,fido,world,1,P-000004,3\n"  # row 8: only one side
        + "e1,2026-03-14,fido,club,1,P-000005,3\n"
        + "e1,2026-03-15,fido,club,1,P-000006,1\n"  # row 10: other date, side twice
        + "f1,2026-03-14,fido,club,1,P-000007,5\n"  # rows 11-12: fine
        + "f1,2026-03-14,fido,club,2,P-000008,4\n"
    )
    before = counts()
    response = upload(sec_client, content)
    assert response.status_code == 400
    assert counts() == before
    page = text(response.content.decode())
    expected = [
        "Row 3 · players: there is no player P-999999; check the federation id",
        "Row 4 · score: score must be a whole number, not “x”",
        "Row 5 · players: player P-000003 appears twice in this match",
        "Row 6 · date: the match date 2026-03-25 is in the future",
        "Row 8 · side: a match has 2 to 9 sides, not 1",
        "Row 10 · side: side 1 of match e1 is also on row 9",
        "Row 10 · date: date differs from row 9 of the same match (2026-03-14)",
    ]
    for line in expected:
        assert line in page, line
    assert "7 problems found" in page
    assert 'name="token"' not in response.content.decode()


def test_confirm_stores_every_match(sec_client: Client, secretary, players) -> None:
    token = token_of(upload(sec_client, GOOD).content.decode())
    assert not Match.objects.exists()
    response = sec_client.post("/secretary/upload/", {"token": token})
    assert response.status_code == 302
    assert response["Location"] == "/secretary/?club=CLUB-7"
    matches = Match.objects.order_by("external_id")
    assert [m.external_id for m in matches] == ["CLUB-7/2026-03-14/t1", "CLUB-7/2026-03-14/t2"]
    assert {m.submission.channel for m in matches} == {Channel.CSV}
    assert Submission.objects.get().submitted_by == secretary
    t1, t2 = matches
    assert list(t1.sides.order_by("position").values_list("score", flat=True)) == [57, 31, 31, -4]
    assert sorted(t2.members.values_list("player__player_id", flat=True)) == [
        "P-000005",
        "P-000006",
        "P-000007",
        "P-000008",
    ]
    page = text(sec_client.get(response["Location"]).content.decode())
    assert (
        "2 matches stored from the CSV file (2 on time, 0 late). Counting month: 2026-03." in page
    )

    # Confirming again stores nothing twice: the same content is recognised.
    again = sec_client.post("/secretary/upload/", {"token": token}, follow=True)
    assert "0 matches stored" in text(again.content.decode())
    assert Match.objects.count() == 2


def test_a_tampered_or_foreign_confirmation_stores_nothing(
    sec_client: Client, client: Client, players
) -> None:
    token = token_of(upload(sec_client, GOOD).content.decode())
    bad = sec_client.post("/secretary/upload/", {"token": token[:-2] + "xx"})
    assert bad.status_code == 400
    assert not Match.objects.exists()

    from tests.matches.factories import SecretaryFactory, UserFactory

    other = SecretaryFactory(
        club=Match._meta.get_field("club").related_model.objects.get(club_id="CLUB-7"),
        user=UserFactory(username="sec7b"),
    ).user
    other_client = Client()
    other_client.force_login(other)
    assert other_client.post("/secretary/upload/", {"token": token}).status_code == 403
    assert not Match.objects.exists()


def test_confirm_after_something_changed_stores_nothing(
    sec_client: Client, players, set_now
) -> None:
    token = token_of(upload(sec_client, GOOD).content.decode())
    # Another t2 with other content arrives between preview and confirm.
    sec_client.post(
        "/secretary/submit/",
        {
            "club": "CLUB-7",
            "date": "2026-03-14",
            "discipline": "fido",
            "category": "club",
            "external_id": "CLUB-7/2026-03-14/t2",
            "sides-0-players": "P-000001",
            "sides-0-score": "1",
            "sides-1-players": "P-000002",
            "sides-1-score": "0",
        },
    )
    response = sec_client.post("/secretary/upload/", {"token": token})
    assert response.status_code == 400
    page = text(response.content.decode())
    assert "Nothing was stored" in page
    assert "1 match is already stored with other content: see below." in page
    assert "Match CLUB-7/2026-03-14/t2 (from row 6)" in page
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"x" * (MAX_BYTES + 1), "larger than 1024 KiB"),
        (
            "id,date,discipline,category,side,players,score\nä,2026-03-14,fido,club,1,P-1,1\n".encode(
                "latin-1"
            ),
            "not UTF-8",
        ),
        (b"PK\x03\x04\x14\x00\x06\x00binary", "not a CSV text file"),
        (b"\x00\x01\x02", "not a CSV text file"),
        (
            "id,date,discipline,side,players\na,2026-03-14,fido,1,P-000001\n",
            "missing columns: category, score",
        ),
        (HEADER.replace("players", "player"), "unknown column: player"),
        (HEADER + 'a,2026-03-14,fido,club,1,"P-000001"x,1\n', "bad quoting"),
        (HEADER + 'a,2026-03-14,fido,club,1,"P-000001,1\n', "bad quoting"),
        (HEADER + "a,2026-03-14,fido,club,1,P-1,1\n" * (MAX_ROWS + 1), "more than 5000 rows"),
        (b"", "The submitted file is empty"),
        (HEADER, "no result rows"),
    ],
    ids=[
        "too-large",
        "latin-1",
        "xlsx",
        "binary",
        "missing",
        "unknown",
        "quote",
        "unclosed",
        "rows",
        "empty",
        "header-only",
    ],
)
def test_unreadable_files_get_400_and_a_clear_message(
    sec_client: Client, players, content: bytes | str, message: str
) -> None:
    before = counts()
    response = upload(sec_client, content)
    assert response.status_code == 400
    page = text(response.content.decode())
    assert message in page
    assert "Nothing was stored" in page
    assert counts() == before


def test_exactly_the_row_limit_is_read() -> None:
    # The reader alone (storing 2,500 matches belongs to the service's own benchmarks).
    rows = "".join(
        f"m{i // 2},2026-03-14,fido,club,{1 + i % 2},P-00000{1 + i % 2},{i % 7}\n"
        for i in range(MAX_ROWS)
    )
    batch = read_csv((HEADER + rows).encode(), club_id="CLUB-7")
    assert (len(batch.rows), len(batch.matches), batch.problems) == (MAX_ROWS, MAX_ROWS // 2, [])
    with pytest.raises(CsvRejected, match="more than 5000 rows"):
        read_csv((HEADER + rows + rows[:60]).encode(), club_id="CLUB-7")


def test_semicolon_files_from_spreadsheets_and_a_bom_are_read(sec_client: Client, players) -> None:
    content = "\ufeff" + GOOD.replace(",", ";").replace("P-000005;P-000006", '"P-000005;P-000006"')
    response = upload(sec_client, content)
    assert response.status_code == 200, text(response.content.decode())[:1500]
    assert "2 matches in 6 rows." in text(response.content.decode())


def test_formula_like_ids_are_refused_but_negative_scores_are_not(
    sec_client: Client, players
) -> None:
    content = (
        HEADER
        + "=cmd|x,2026-03-14,fido,club,1,P-000001,-4\n=cmd|x,2026-03-14,fido,club,2,P-000002,-9\n"
    )
    response = upload(sec_client, content)
    assert response.status_code == 400
    page = text(response.content.decode())
    assert "Row 2 · id: the match id must not start with '=' (a spreadsheet formula)" in page
    assert "1 problem found" in page  # nothing about the scores -4 and -9


def test_a_late_file_is_previewed_as_late(sec_client: Client, players, set_now) -> None:
    set_now(dt.datetime(2026, 4, 3, 10, 0, tzinfo=BERLIN))
    page = text(upload(sec_client, GOOD).content.decode())
    assert "2 new matches (0 on time, 2 late)" in page
    assert "counts in 2026-04" in page


def test_a_player_the_file_names_wrongly_is_looked_up_in_the_preview(
    sec_client: Client, club, players
) -> None:
    """Issue 15, item 1: where a row's player is unknown (a name written for an id, a
    typo), the preview offers the players the text finds, namesakes told apart by id, club
    and country, and says which id to write in which row."""
    other = ClubFactory(club_id="CLUB-SJU", name="Dominó San Juan", country="PR")
    PlayerFactory(player_id="P-000102", name="Ana Castro", country="CU", club=club)
    PlayerFactory(player_id="P-000103", name="Ana Castro", country="PR", club=other)
    content = (
        HEADER
        + "a1,2026-03-14,fido,club,1,P-000001,57\n"
        + "a1,2026-03-14,fido,club,2,Ana Castro,31\n"  # row 3: a name, two players have it
        + "a1,2026-03-14,fido,club,3,P-000002+P-999999,3\n"  # row 4: an id nobody has
    )
    response = upload(sec_client, content)
    assert response.status_code == 400
    page = text(response.content.decode())
    assert (
        "“Ana Castro” is no federation id. Players it finds: "
        "P-000102: Ana Castro, Domino Club Seven, Cuba "
        "P-000103: Ana Castro, Dominó San Juan, Puerto Rico "
        "Write the right player's id in row 3 instead of “Ana Castro”."
    ) in page
    assert "No player is found by “P-999999”." in page
    assert "Find the player for “P-000002”" not in page  # a known id is not looked up
    html = response.content.decode()
    assert 'id="lookup-3-1" list="lookup-3-1-list"' in html
    assert 'data-template="Write {id} ({name}, {club}, {country}) in row 4 instead of' in html
    assert not Match.objects.exists()
