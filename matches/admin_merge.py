"""The admin's merge of two player records (issue 15, item 1): a form where each record is
found by name, federation id, club or country (the type-ahead of static/js/player_search.js
over ``GET /api/players?q=``), then a confirmation that shows both records, then
:func:`matches.services.player_merge` (who, when and why recorded there).

In: the duplicate's and the surviving record's federation ids and a reason. Out: the
merge, or the form again with a 400 and a message in the admin's language that says which
field is wrong and what to do (an unknown id, a record already merged, the same record
twice, no reason, or what the service refuses); nothing changes then.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django_countries import countries

from . import clock
from .models import Player
from .selectors.players import live_player, result_count
from .services import player_merge
from .validation import InvalidSubmission


class PlayerMergeForm(forms.Form):
    source = forms.CharField(
        label=gettext_lazy("Duplicate record (its results move)"),
        max_length=20,
        help_text=gettext_lazy("Type a name, federation id, club or country and pick the player."),
    )
    target = forms.CharField(
        label=gettext_lazy("Surviving record (keeps the results)"),
        max_length=20,
        help_text=gettext_lazy("Type a name, federation id, club or country and pick the player."),
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"), widget=forms.Textarea(attrs={"rows": 3}), max_length=500
    )

    def _player(self, field: str) -> Player:
        typed = self.cleaned_data[field]
        player = live_player(typed)
        if player is None:
            raise forms.ValidationError(
                _(
                    "There is no player %(id)s: type part of the name, club or country and "
                    "pick the player from the list."
                )
                % {"id": typed}
            )
        if player.merged_into is not None:
            raise forms.ValidationError(
                _("%(id)s was already merged into %(into)s: use %(into)s.")
                % {"id": player.player_id, "into": player.merged_into.player_id}
            )
        return player

    def clean_source(self) -> Player:
        return self._player("source")

    def clean_target(self) -> Player:
        return self._player("target")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        source, target = data.get("source"), data.get("target")
        if source is not None and source == target:
            self.add_error("target", _("Choose two different records: this is the duplicate."))
        return data


def _described(player: Player) -> dict[str, Any]:
    return {
        "player": player,
        "club": player.club.name if player.club else "—",
        "country": countries.name(player.country) or player.country,
        "results": result_count(player),
    }


def merge_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the form (``?source=&target=`` prefill it); POST: the confirmation, then with
    ``confirm`` the merge."""
    if request.method == "POST":
        form = PlayerMergeForm(request.POST)
    else:
        form = PlayerMergeForm(initial={k: request.GET.get(k, "") for k in ("source", "target")})
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "form": form,
        "title": _("Merge two player records"),
        "opts": model_admin.model._meta,
    }
    if request.method != "POST":
        return render(request, "admin/matches/player_merge.html", context)
    if not form.is_valid():
        return render(request, "admin/matches/player_merge.html", context, status=400)
    source, target = form.cleaned_data["source"], form.cleaned_data["target"]
    if "confirm" not in request.POST:
        context["confirm"] = {"source": _described(source), "target": _described(target)}
        return render(request, "admin/matches/player_merge.html", context)
    try:
        merge = player_merge(
            source=source,
            target=target,
            by=request.user,
            reason=form.cleaned_data["reason"],
            now=clock.now(),
        )
    except InvalidSubmission as exc:
        form.add_error(None, "; ".join(p.message for p in exc.problems))
        return render(request, "admin/matches/player_merge.html", context, status=400)
    model_admin.message_user(
        request,
        ngettext(
            "Merged %(source)s into %(target)s: %(n)d result moved.",
            "Merged %(source)s into %(target)s: %(n)d results moved.",
            merge.results_moved,
        )
        % {"source": source.player_id, "target": target.player_id, "n": merge.results_moved},
        messages.SUCCESS,
    )
    return redirect(reverse("admin:matches_player_changelist"))
