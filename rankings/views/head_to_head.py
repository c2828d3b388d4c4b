"""The public head-to-head page of two players: ``/players/<id>/versus/<other_id>/``.

``/players/<id>/versus/?other=<id>`` (the player page's "compare with" form, whose field
the player type-ahead fills with a federation id; a typed name that matches one player
only is taken as that player) redirects there. Query: ``discipline``
(default FIDO). A merged player's id redirects to the record it lives on in. 404 (with the
id in the message) for an unknown player, 400 for the same player twice, an empty "compare
with" field or an unknown discipline. The rows come from
:func:`rankings.selectors.head_to_head.head_to_head` (the API's selector).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from matches.disciplines import DISCIPLINES
from matches.models import Category, Player
from matches.selectors.player_search import player_search

from ..head_to_head_words import tally_sentence
from ..selectors.head_to_head import MAX_SHOWN, head_to_head
from ..selectors.players import surviving_player

MAX_ID_LENGTH = 40


def _found(player_id: str) -> Player:
    """The player of a federation id (through merges); 404 naming the id otherwise."""
    found = surviving_player(player_id) if len(player_id) <= MAX_ID_LENGTH else None
    if found is None or found.merged_into_id is not None:
        raise Http404(
            _(
                "No player has the federation id “%(id)s”. Choose a player from the "
                "suggestions, or type an id such as P-000123."
            )
            % {"id": player_id[:MAX_ID_LENGTH]}
        )
    return found


def _typed(text: str) -> Player:
    """The player the "compare with" field names: a federation id, else the one player whose
    name (or club, or country) matches what was typed; 400 when several do, 404 when none."""
    found = surviving_player(text) if len(text) <= MAX_ID_LENGTH else None
    if found is not None and found.merged_into_id is None:
        return found
    candidates = list(player_search(text[:MAX_ID_LENGTH])[:2])
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise BadRequest(
            _(
                "Several players match “%(text)s”: choose one from the suggestions, or type "
                "their federation id."
            )
            % {"text": text[:MAX_ID_LENGTH]}
        )
    raise Http404(
        _("No player matches “%(text)s”. Type a name or an id such as P-000123.")
        % {"text": text[:MAX_ID_LENGTH]}
    )


def _discipline(request: HttpRequest) -> str:
    code = request.GET.get("discipline", "fido")
    if code not in DISCIPLINES:
        raise BadRequest(_("No such discipline."))
    return code


@require_GET
def versus_form(request: HttpRequest, player_id: str) -> HttpResponse:
    """The "compare with" form's target: redirect to the two players' page."""
    player = _found(player_id)
    other = request.GET.get("other", "").strip()
    if not other:
        raise BadRequest(_("Type the name or federation id of the player to compare with."))
    rival = _typed(other)
    url = reverse("rankings:head_to_head", args=[player.player_id, rival.player_id])
    code = _discipline(request)
    return redirect(f"{url}?{urlencode({'discipline': code})}" if code != "fido" else url)


@require_GET
def versus(request: HttpRequest, player_id: str, other_id: str) -> HttpResponse:
    code = _discipline(request)
    player, rival = _found(player_id), _found(other_id)
    if (player.player_id, rival.player_id) != (player_id, other_id):
        url = reverse("rankings:head_to_head", args=[player.player_id, rival.player_id])
        return redirect(f"{url}?{request.GET.urlencode()}" if request.GET else url, permanent=True)
    if player.pk == rival.pk:
        raise BadRequest(
            _("Both ids are %(name)s's: choose another player to compare with.")
            % {"name": player.name}
        )
    found = head_to_head(player.pk, rival.pk, discipline=code)
    context: dict[str, Any] = {
        "player": player,
        "rival": rival,
        "h2h": found,
        "tally": tally_sentence(player.name, rival.name, found),
        "max_shown": MAX_SHOWN,
        "discipline": code,
        "discipline_name": DISCIPLINES[code].name,
        "category_names": dict(Category.choices),
        "tabs": [
            {
                "code": tab,
                "name": info.name,
                "url": f"?{urlencode({'discipline': tab})}",
                "current": tab == code,
            }
            for tab, info in DISCIPLINES.items()
        ],
    }
    return render(request, "rankings/head_to_head.html", context)
