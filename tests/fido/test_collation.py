"""Names sorted as a reader looks them up (fido/collation.py)."""

from __future__ import annotations

from fido.collation import name_key


def test_accents_and_case_are_ignored() -> None:
    names = ["Vereinigte Staaten", "Österreich", "niederlande", "Deutschland", "Ägypten"]
    assert sorted(names, key=name_key) == [
        "Ägypten",
        "Deutschland",
        "niederlande",
        "Österreich",
        "Vereinigte Staaten",
    ]
    assert name_key("Dominó San Juan") == name_key("domino san juan")
    assert name_key("Straße") == "strasse"
