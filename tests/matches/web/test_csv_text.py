"""The CSV's text is checked once, as it is read (issue 16, item 4): a control character,
a lone surrogate (possible in UTF-16) or a bidirectional override anywhere in the file is
refused with its line, nothing stored; no Unicode in any cell gives a 5xx."""

from __future__ import annotations

import codecs

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fido.text import text_problem
from matches.csv_upload import CsvRejected, read_csv

from .conftest import counts, text
from .test_csv_upload import GOOD, HEADER, upload

pytestmark = pytest.mark.django_db
ANY_TEXT = st.text(st.characters(codec=None, categories=None, exclude_categories=()), max_size=30)


@pytest.mark.parametrize(
    ("cell", "shown"),
    [("P-0\x0101", "U+0001"), ("CLUB-7/\u202et1", "U+202E"), ("P-\x7f1", "U+007F")],
)
def test_a_refused_character_is_named_with_its_line(sec_client: Client, cell: str, shown: str):
    data = HEADER + f"t1,2026-03-14,fido,club,1,P-000001,57\nt1,2026-03-14,fido,club,2,{cell},3\n"
    before = counts()
    response = upload(sec_client, data)
    assert response.status_code == 400
    page = text(response.content.decode())
    assert "Line 3 contains" in page and shown in page
    assert counts() == before


def test_a_lone_surrogate_in_a_utf16_file_is_refused_not_a_500(sec_client: Client) -> None:
    body = (HEADER + "t1,2026-03-14,fido,club,1,P-\ud800,57\n").encode("utf-16-le", "surrogatepass")
    before = counts()
    response = upload(sec_client, codecs.BOM_UTF16_LE + body)
    assert response.status_code == 400
    assert "line 2" in text(response.content.decode())
    assert counts() == before


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=ANY_TEXT, column=st.integers(0, 6), utf16=st.booleans())
def test_no_unicode_in_any_cell_gives_a_5xx(sec_client: Client, value: str, column: int, utf16):
    lines = GOOD.splitlines()
    cells = lines[1].split(",")
    cells[column] = value
    lines[1] = ",".join(cells)
    content = "\n".join(lines) + "\n"
    data = (
        codecs.BOM_UTF16_LE + content.encode("utf-16-le", "surrogatepass")
        if utf16
        else content.encode("utf-8", "surrogatepass")
    )
    response = upload(sec_client, data)
    assert response.status_code < 500
    if text_problem(value) is not None:
        assert response.status_code == 400
        with pytest.raises(CsvRejected):
            read_csv(data, club_id="CLUB-7")
