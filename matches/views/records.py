"""The game record viewer: replay a record and show its layout, moves and settlement.

Public pages (no login): a game record is part of a result, and results are public.
- ``GET /records/viewer/``: the form (paste or upload a record), and with
  ``?example=<game>&seed=<n>`` a seeded simulated record of that game, replayed and shown.
- ``POST /records/viewer/``: replay the pasted text or the uploaded file (CSRF-protected).
  200 with the drawing, the move list, each game's result and the session's settlement;
  400 with the engine's verdict (field path, move number, player, rule, reason) for a
  document that is not JSON or not a legal record; 413 for one larger than
  ``MAX_RECORD_BYTES``. Nothing is stored.
- ``GET /matches/<pk>/records/``: the records a stored match carries, each replayed the
  same way. Private like the match itself: only the club's secretaries and admins, as in
  the API (:func:`matches.selectors.match_list_for`); anyone else, logged in or not, gets
  the 404 of an unknown match, so walking ids tells nothing (issue 16, item 6). The public
  sees results only through the public pages.

The view only decodes input and calls the pure engine (``matches.rules``) and the pure
layout renderer (``matches.rules.render``); it never answers a 5xx for bad input.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from fido.text import json_text_problems

from ..models import Match
from ..rules import render as layout_render
from ..rules.engine import replay_record
from ..rules.errors import IllegalMove, RuleError
from ..rules.record import MAX_RECORD_BYTES, Record, load
from ..rules.simulate import simulate
from ..selectors import match_list_for, player_names

#: Games drawn in full; a longer session still shows its settlement and every result.
MAX_GAMES_DRAWN = 60
#: The "try an example" games: simulator arguments per game name.
EXAMPLES: dict[str, dict[str, Any]] = {
    "fido": {"players": 4, "games": 1, "options": {"set": 12}},
    "muggins": {"players": 2, "games": 2},
    "fiveup": {"players": 4, "games": 2, "teams": True},
    "austrian": {"players": 3, "games": 2, "options": {"mode": "block"}},
    "buki": {"players": 4, "games": 3},
    "pulle": {"players": 4, "games": 3},
}
EXAMPLE_LABELS = {
    "fido": gettext_lazy("FIDO divisor game"),
    "muggins": gettext_lazy("Muggins"),
    "fiveup": gettext_lazy("Five Up"),
    "austrian": gettext_lazy("Austrian block game"),
    "buki": gettext_lazy("Buki"),
    "pulle": gettext_lazy("Pulle"),
}
GAME_NAMES = {
    **EXAMPLE_LABELS,
    "austrian": gettext_lazy("Austrian double-eight"),
}
DEFAULT_SEED = 1
MAX_SEED = 10**9
MONEY_GAMES = frozenset({"buki", "pulle"})


class RecordForm(forms.Form):
    record = forms.CharField(
        label=gettext_lazy("Paste a game record (JSON)"),
        required=False,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "class": "code"}),
    )
    file = forms.FileField(label=gettext_lazy("…or upload a .json file"), required=False)
    partial = forms.BooleanField(
        label=gettext_lazy("Show an unfinished game (do not refuse a record that stops early)"),
        required=False,
    )


@dataclass
class Refusal:
    """Why a document was refused, ready for the template."""

    message: str
    path: str = ""
    move: int | None = None
    player: str | None = None
    rule: str = ""
    game: int | None = None
    status: int = 400


@dataclass
class Shown:
    """One replayed record, as the templates show it."""

    game_name: str
    variant: dict[str, Any]
    seats: list[dict[str, str]]
    games: list[dict[str, Any]]
    session: dict[str, Any]
    has_money: bool
    hidden_games: int = 0
    teams: list[list[str]] = field(default_factory=list)
    anchor: str = "r"  # prefix of the element ids, unique per record on a page
    banker: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # stakes, pool... (as recorded)


# --- Pages --------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def viewer(request: HttpRequest) -> HttpResponse:
    """Paste, upload or pick an example; replay it and show it."""
    context: dict[str, Any] = {"examples": _examples(), "max_kib": MAX_RECORD_BYTES // 1024}
    if request.method == "POST":
        return _viewer_post(request, context)
    example = request.GET.get("example", "")
    if example:
        return _viewer_example(request, context, example)
    context["form"] = RecordForm()
    return render(request, "records/viewer.html", context)


@require_GET
def match_records(request: HttpRequest, pk: int) -> HttpResponse:
    """The game records stored with a match, each replayed and drawn (see the module doc)."""
    match = get_object_or_404(match_list_for(user=request.user), pk=pk)
    raw = match.records
    documents: list[Any] = [] if raw is None else raw if isinstance(raw, list) else [raw]
    ids = {
        s
        for doc in documents
        if isinstance(doc, Mapping) and isinstance(doc.get("seats"), list)
        for s in doc["seats"]
        if isinstance(s, str)
    }
    names = player_names(ids)
    shown = []
    for i, doc in enumerate(documents):
        outcome = _replay(
            doc, partial=False, names=names, prefix=f"records[{i}]", anchor=f"r{i + 1}"
        )
        shown.append(
            {
                "index": i + 1,
                "refusal": outcome if isinstance(outcome, Refusal) else None,
                "shown": outcome if isinstance(outcome, Shown) else None,
            }
        )
    return render(
        request,
        "records/match_records.html",
        {"match": match, "records": shown, "sides": _sides_of(match)},
    )


def _viewer_post(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    try:
        form = RecordForm(request.POST, request.FILES)
    except RequestDataTooBig:
        return _refused(request, context, RecordForm(), _too_large())
    context["form"] = form
    if not form.is_valid():  # only a broken upload can make it invalid
        return _refused(request, context, form, Refusal(_("The upload could not be read.")))
    upload = form.cleaned_data.get("file")
    text = form.cleaned_data.get("record") or ""
    if upload is not None:
        if upload.size is not None and upload.size > MAX_RECORD_BYTES:
            return _refused(request, context, form, _too_large())
        raw = upload.read(MAX_RECORD_BYTES + 1)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return _refused(
                request, context, form, Refusal(_("The file is not UTF-8 text: is it JSON?"))
            )
        # Show what was replayed in the text box, so it can be edited and replayed again.
        form = RecordForm({"record": text, "partial": form.cleaned_data.get("partial")})
        form.is_valid()
        context["form"] = form
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        return _refused(request, context, form, _too_large())
    if not text.strip():
        return _refused(
            request, context, form, Refusal(_("Paste a game record or choose a file first."))
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = _("This is not valid JSON: %(reason)s at line %(line)s, column %(column)s.") % {
            "reason": exc.msg,
            "line": exc.lineno,
            "column": exc.colno,
        }
        return _refused(request, context, form, Refusal(message))
    except RecursionError:
        return _refused(request, context, form, Refusal(_("The JSON is nested too deeply.")))
    for path, reason in json_text_problems(text, data):
        return _refused(request, context, form, Refusal(reason, path=path))
    outcome = _replay(data, partial=bool(form.cleaned_data.get("partial")))
    if isinstance(outcome, Refusal):
        return _refused(request, context, form, outcome)
    context["shown"] = outcome
    return render(request, "records/viewer.html", context)


def _viewer_example(request: HttpRequest, context: dict[str, Any], game: str) -> HttpResponse:
    if game not in EXAMPLES:
        context["form"] = RecordForm()
        return _refused(
            request, context, context["form"], Refusal(_("There is no example of that game."))
        )
    try:
        seed = int(request.GET.get("seed", DEFAULT_SEED))
    except ValueError:
        seed = DEFAULT_SEED
    seed = min(max(seed, 0), MAX_SEED)
    spec = EXAMPLES[game]
    record = simulate(game, seed=seed, **spec).record
    text = json.dumps(record, indent=1)
    form = RecordForm({"record": text})
    form.is_valid()
    context.update(
        form=form,
        example={"game": game, "label": EXAMPLE_LABELS[game], "seed": seed, "next": seed + 1},
        shown=_replay(record, partial=False),
    )
    return render(request, "records/viewer.html", context)


def _refused(
    request: HttpRequest, context: dict[str, Any], form: RecordForm, refusal: Refusal
) -> HttpResponse:
    context.setdefault("form", form)
    context["refusal"] = refusal
    return render(request, "records/viewer.html", context, status=refusal.status)


def _too_large() -> Refusal:
    return Refusal(
        _("The record is too large: at most %(kib)s KiB.") % {"kib": MAX_RECORD_BYTES // 1024},
        status=413,
    )


def _examples() -> list[dict[str, Any]]:
    return [{"game": g, "label": EXAMPLE_LABELS[g]} for g in EXAMPLES]


def _sides_of(match: Match) -> list[dict[str, Any]]:
    return [
        {
            "score": side.score,
            "players": [m.player for m in side.members.select_related("player").order_by("id")],
        }
        for side in match.sides.order_by("position")
    ]


# --- Replay and presentation --------------------------------------------------------------


def _replay(
    data: Any,
    *,
    partial: bool,
    names: Mapping[str, str] | None = None,
    prefix: str = "",
    anchor: str = "r",
) -> Shown | Refusal:
    """Load, replay and draw ``data``; a ``Refusal`` with the engine's reason otherwise."""
    try:
        record = load(data)
        report = replay_record(record, partial=partial).to_json()
    except IllegalMove as exc:
        return Refusal(
            exc.message,
            path=_join(prefix, exc.path),
            move=exc.move,
            player=exc.player,
            rule=exc.rule,
            game=exc.game + 1,
        )
    except RuleError as exc:
        return Refusal(exc.message, path=_join(prefix, exc.path))
    except RecursionError:
        return Refusal(_("The record is nested too deeply."), path=prefix)
    return _present(record, report, names or {}, anchor)


def _join(prefix: str, path: str) -> str:
    if prefix and path:
        return f"{prefix}.{path}"
    return prefix or path


def _present(
    record: Record, report: dict[str, Any], names: Mapping[str, str], anchor: str
) -> Shown:
    game_name = record.variant.game
    top = layout_render.max_value(record.variant.tiles)
    session = report["session"]
    has_money = game_name in MONEY_GAMES or any(
        p.get("money") not in (None, "0.00") for p in session["players"].values()
    )
    games = []
    for index, (game, rep) in enumerate(zip(record.games, report["games"], strict=True)):
        if index >= MAX_GAMES_DRAWN:
            break
        games.append(_present_game(index, game, rep, top, f"{anchor}-g{index + 1}", names))
    seats = [{"seat": s, "name": names.get(s, "")} for s in record.seats]
    return Shown(
        game_name=str(GAME_NAMES.get(game_name, game_name)),
        variant=dict(record.variant.options),
        seats=seats,
        games=games,
        session=_present_session(session, record, names),
        has_money=has_money,
        hidden_games=max(0, len(record.games) - MAX_GAMES_DRAWN),
        teams=[list(t) for t in record.teams] if record.teams else [],
        anchor=anchor,
        banker=record.banker,
        settings={k: _setting(v) for k, v in record.extra.items()},
    )


def _setting(value: Any) -> str:
    """A top-level setting of the record (stakes, per-game payment...) as short text."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _present_game(
    index: int,
    game: Any,
    rep: dict[str, Any],
    top: int,
    anchor: str,
    names: Mapping[str, str],
) -> dict[str, Any]:
    caption_id = f"{anchor}-layout"
    drawing: SafeString | None = None
    placed = 0
    if not game.is_scoresheet:
        # The renderer escapes everything it takes from the record.
        drawing = mark_safe(  # noqa: S308
            layout_render.svg(game, max_value=top, labelledby=caption_id)
        )
        placed = sum(1 for m in rep["moves"] if "tile" in m)
    moves = []
    for entry in rep["moves"]:
        n = entry.get("n")
        source = game.moves[n - 1] if isinstance(n, int) and 0 < n <= len(game.moves) else None
        moves.append(_move_row(entry, source))
    ledger = rep.get("ledger") or {}
    players = [
        {
            "seat": seat,
            "name": names.get(seat, ""),
            "points": row.get("points"),
            "pips_left": row.get("pips_left"),
            "final": row.get("final"),
            "hand_end": row.get("hand_end"),
            "money": ledger.get(seat),
            "winner": seat in rep.get("winners", []),
        }
        for seat, row in rep["players"].items()
    ]
    return {
        "number": index + 1,
        "anchor": anchor,
        "caption_id": caption_id,
        "drawing": drawing,
        "placed": placed,
        "scoresheet": game.is_scoresheet,
        "end": rep.get("end"),
        "end_label": _end_label(rep.get("end")),
        "winners": rep.get("winners", []),
        "moves": moves,
        "players": players,
        "has_hand_end": any(p["hand_end"] is not None for p in players),
        "has_ledger": bool(ledger),
        "sides": rep.get("sides", []) if len(rep.get("sides", [])) < len(players) else [],
        "pulle": rep.get("pulle"),
    }


def _move_row(entry: dict[str, Any], source: Any) -> dict[str, Any]:
    """One line of the move list: what happened, where, and what it counted and scored."""
    row: dict[str, Any] = {
        "n": entry.get("n"),
        "player": entry.get("player") or entry.get("spectator") or "",
        "count": entry.get("count"),
        "points": entry.get("points"),
        "on": "",
        "facet": "",
    }
    if "tile" in entry:
        row["kind"] = "play"
        row["what"] = entry["tile"]
        if source is not None and source.on is not None:
            row["on"] = str(source.on)
            row["facet"] = _("cross side") if source.facet == "cross" else _("end")
        elif source is not None:
            row["facet"] = _("lead")
    elif "draw" in entry:
        row["kind"] = "draw"
        row["what"] = entry["draw"]
        row["correction"] = bool(entry.get("correction"))
    elif "pass" in entry:
        row["kind"] = "pass"
        row["what"] = ""
    elif "stake" in entry:
        row["kind"] = "stake"
        row["what"] = entry["stake"]
    elif "raise" in entry:
        row["kind"] = "raise"
        row["what"] = entry["raise"]
        row["accepted"] = entry.get("accepted")
    elif "bet" in entry:
        row["kind"] = "bet"
        row["what"] = entry["bet"]
        row["on"] = entry.get("on", "")
        row["accepted"] = entry.get("accepted")
    else:
        row["kind"] = "other"
        row["what"] = ", ".join(f"{k}: {v}" for k, v in entry.items() if k not in ("n", "player"))
    return row


def _end_label(end: str | None) -> str:
    return {
        "domino": _("domino (a player placed their last tile)"),
        "blocked": _("blocked"),
        "unfinished": _("unfinished"),
        "target": _("target reached"),
    }.get(end or "", end or "")


def _present_session(
    session: dict[str, Any], record: Record, names: Mapping[str, str]
) -> dict[str, Any]:
    players = [
        {
            "seat": seat,
            "name": names.get(seat, ""),
            "total": row.get("total"),
            "money": row.get("money"),
            "winner": seat in session.get("winners", []),
        }
        for seat, row in session["players"].items()
    ]
    spectators = [
        {"name": name, "money": row.get("money")}
        for name, row in (session.get("spectators") or {}).items()
    ]
    return {
        "players": players,
        "winners": session.get("winners", []),
        "pool": session.get("pool"),
        "spectators": spectators,
        "sides": session.get("sides", []) if record.teams else [],
        "target": session.get("target"),
        "target_reached": session.get("target_reached"),
        "alive": session.get("alive"),
    }
