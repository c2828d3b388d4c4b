"""The player page's fast two-decimal formatter writes what ``floatformat:2`` writes; the
rows' escaping writes what ``html.escape`` writes, their links' ids what ``quote`` writes."""

from __future__ import annotations

import html
from urllib.parse import quote

import pytest
from django.template.defaultfilters import floatformat
from django.utils import translation
from django.utils.formats import get_format
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rankings.templatetags.public_tags import escape, two_places, urlquote

pytestmark = pytest.mark.django_db(databases=[])


@pytest.mark.parametrize("language", ["en", "de"])
@settings(max_examples=400, deadline=None)
@given(
    value=st.one_of(
        # (below 1e-9 floatformat gives up and returns its input, such as "2.1e-242";
        # two_places writes 0.00: no weighted points come near either)
        st.floats(min_value=-1e7, max_value=1e7, allow_nan=False).filter(
            lambda v: v == 0 or abs(v) > 1e-9
        ),
        # halves of a cent and values that round to zero from below: the edges of rounding
        st.integers(min_value=-(10**6), max_value=10**6).map(lambda n: n / 1000),
    )
)
@example(value=0.005)
@example(value=-0.004)
@example(value=2.675)
@example(value=-0.0)
@example(value=1234567.891)
def test_two_places_writes_what_floatformat_writes(language: str, value: float) -> None:
    with translation.override(language):
        assert two_places(value, get_format("DECIMAL_SEPARATOR")) == floatformat(value, 2)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("Pl yer0123&<>\"'äß/-"), max_size=30) | st.text())
@example(text="Player 0123456")
@example(text='<b>Ann</b> O\'Hara & "Bo"')
def test_escape_writes_what_html_escape_writes(text: str) -> None:
    assert escape(text) == html.escape(text)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("P-0123Cb_.~/ %?#äé&"), max_size=20) | st.text())
@example(text="P-000121")
@example(text="CLUB-002623")
@example(text="a b/c?d#e")
def test_urlquote_writes_what_quote_writes(text: str) -> None:
    assert urlquote(text) == quote(text)
