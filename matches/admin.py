"""Django admin for the registry and results.

Results are read-only here: corrections and voids go through the services (which keep the
audit trail), offered as admin actions; so are the merge of two player records and its undo.
The audit trail (submissions, match events, merges and their undos, closed months) is
read-only for everyone, superusers included (:class:`ReadOnlyAdmin`); its rows refuse to be
saved outside the services anyway (:mod:`matches.audit`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from . import clock
from .admin_merge import merge_view
from .models import (
    ApiKey,
    ClosedMonth,
    Club,
    Match,
    MatchEvent,
    Player,
    PlayerDetailsChange,
    PlayerMerge,
    PlayerMergeUndo,
    Secretary,
    Side,
    Submission,
)
from .services import match_void, player_merge_undo
from .services.players import details_problems, player_details_change
from .validation import InvalidSubmission


class ReadOnlyAdmin(admin.ModelAdmin):
    """The admin of an audit record: the list and the detail to read; no add, change or
    delete for anyone, superusers included."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["club_id", "name", "country", "city"]
    search_fields = ["club_id", "name", "city"]
    list_filter = ["country"]


class PlayerForm(forms.ModelForm):
    """A player's record, with the reason a change of name or country needs (recorded with
    it: :mod:`matches.services.players`)."""

    reason = forms.CharField(
        label=gettext_lazy("Reason for a change of name or country"),
        help_text=gettext_lazy(
            "Recorded with the change. Published lists keep showing the name and country "
            "they were published with."
        ),
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=500,
        required=False,
    )

    class Meta:
        model = Player
        fields = ["player_id", "name", "country", "club"]

    def details_changed(self) -> bool:
        return self.instance.pk is not None and bool({"name", "country"} & set(self.changed_data))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "name" in cleaned and "country" in cleaned:
            for problem in details_problems(cleaned["name"], cleaned["country"]):
                self.add_error(problem.path, problem.message)
        if self.details_changed() and not (cleaned.get("reason") or "").strip():
            self.add_error("reason", _("A change of name or country needs a reason."))
        return cleaned


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    form = PlayerForm
    list_display = ["player_id", "name", "country", "club", "merged_into"]
    search_fields = ["player_id", "name"]
    list_filter = ["country"]
    list_select_related = ["club", "merged_into"]
    readonly_fields = ["merged_into"]
    actions = ["merge_players"]
    change_list_template = "admin/matches/player_change_list.html"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A federation id is for life: published lists (and their seals) carry it.
        return [*self.readonly_fields, "player_id"] if obj is not None else [*self.readonly_fields]

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        """A new name or country goes through its service (an event with who and why); the
        rest of the record is saved as it is."""
        if not (change and form.details_changed()):
            super().save_model(request, obj, form, change)
            return
        name, country = obj.name, obj.country
        obj.name, obj.country = form.initial["name"], form.initial["country"]
        super().save_model(request, obj, form, change)
        reason = form.cleaned_data["reason"]
        player_details_change(
            player=obj, name=name, country=country, by=request.user, reason=reason
        )

    def get_urls(self) -> list[Any]:
        merge = path(
            "merge/",
            self.admin_site.admin_view(lambda request: merge_view(self, request)),
            name="matches_player_merge",
        )
        return [merge, *super().get_urls()]

    @admin.action(description=gettext_lazy("Merge the two selected players"))
    def merge_players(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        """The merge form (admin_merge.py), filled with the two selected records."""
        players = list(queryset.order_by("player_id"))
        if len(players) != 2:
            self.message_user(request, _("Select exactly two players to merge."), messages.ERROR)
            return None
        query = urlencode({"source": players[0].player_id, "target": players[1].player_id})
        return redirect(f"{reverse('admin:matches_player_merge')}?{query}")


@admin.register(Secretary)
class SecretaryAdmin(admin.ModelAdmin):
    list_display = ["user", "club", "created_at"]
    autocomplete_fields = ["club"]
    search_fields = ["user__username", "club__club_id"]


class SideInline(admin.TabularInline):
    model = Side
    extra = 0
    can_delete = False
    readonly_fields = ["position", "score"]


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"), widget=forms.Textarea(attrs={"rows": 3}), max_length=500
    )


def reason_action(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    name: str,
    title: str,
    apply: Callable[..., object],
    done: Callable[[int], str],
    listed: list[str] | None = None,
) -> HttpResponse | None:
    """An admin action that asks for a reason, then hands each selected object to its
    service, ``apply(obj, by=, reason=, now=)``: the service records who, when and why, and
    refuses what it must (each refusal is reported with the object; the others go on)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        count = 0
        for obj in queryset:
            try:
                apply(obj, by=request.user, reason=form.cleaned_data["reason"], now=clock.now())
                count += 1
            except InvalidSubmission as exc:
                problems = "; ".join(p.message for p in exc.problems)
                model_admin.message_user(request, f"{obj}: {problems}", messages.WARNING)
        model_admin.message_user(request, done(count), messages.SUCCESS)
        return None
    return render(
        request,
        "admin/matches/confirm_action.html",
        {
            **model_admin.admin_site.each_context(request),
            "form": form,
            "selected": queryset,
            # What the confirmation acts on, one line per object (issue 15, item 3).
            "listed": listed,
            "action": name,
            "title": title,
        },
    )


def _void_lines(queryset: QuerySet[Match]) -> list[str]:
    """The matches a void confirmation lists: id, date, discipline, scores."""
    return [
        " · ".join(
            (
                m.label,
                m.date_played.isoformat(),
                m.get_discipline_display(),
                " / ".join(str(s.score) for s in m.sides.all()),
            )
        )
        + ((" " + _("(already voided: left as it is)")) if m.voided_at else "")
        for m in queryset.select_related("club").prefetch_related("sides")
    ]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = [
        "external_id",
        "revision",
        "club",
        "date_played",
        "discipline",
        "category",
        "status",
        "counting_month",
        "voided_at",
    ]
    list_filter = ["discipline", "category", "status", "counting_month"]
    search_fields = ["external_id", "club__club_id"]
    list_select_related = ["club"]
    date_hierarchy = "date_played"
    inlines = [SideInline]
    actions = ["void_matches"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # never edited in place: corrections and voids are events

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=gettext_lazy("Void the selected matches (from the next list on)"))
    def void_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> HttpResponse | None:
        return reason_action(
            self,
            request,
            queryset,
            name="void_matches",
            title=_("Void matches"),
            apply=lambda match, **how: match_void(match=match, **how),
            done=lambda n: ngettext("Voided %d match.", "Voided %d matches.", n) % n,
            listed=_void_lines(queryset),
        )


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "kind", "match", "by", "reason"]
    list_filter = ["kind"]
    list_select_related = ["match__club", "by"]


@admin.register(PlayerMerge)
class PlayerMergeAdmin(ReadOnlyAdmin):
    list_display = ["merged_at", "source", "target", "results_moved", "merged_by", "reason"]
    list_select_related = ["source", "target", "merged_by"]
    actions = ["undo_merges"]

    @admin.action(description=gettext_lazy("Undo the selected merges (within their month)"))
    def undo_merges(
        self, request: HttpRequest, queryset: QuerySet[PlayerMerge]
    ) -> HttpResponse | None:
        return reason_action(
            self,
            request,
            queryset,
            name="undo_merges",
            title=_("Undo merges"),
            apply=lambda merge, **how: player_merge_undo(merge=merge, **how),
            done=lambda n: ngettext("Undid %d merge.", "Undid %d merges.", n) % n,
        )


@admin.register(PlayerMergeUndo)
class PlayerMergeUndoAdmin(ReadOnlyAdmin):
    list_display = ["undone_at", "merge", "results_moved", "undone_by", "reason"]


@admin.register(PlayerDetailsChange)
class PlayerDetailsChangeAdmin(ReadOnlyAdmin):
    list_display = [
        "changed_at",
        "player",
        "name_before",
        "name_after",
        "country_before",
        "country_after",
        "changed_by",
        "reason",
    ]
    list_select_related = ["player", "changed_by"]
    search_fields = ["player__player_id", "name_before", "name_after"]


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = ["received_at", "club", "channel", "submitted_by"]
    list_select_related = ["club", "submitted_by"]


@admin.register(ClosedMonth)
class ClosedMonthAdmin(ReadOnlyAdmin):
    list_display = ["discipline", "month", "closed_at", "closed_by"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """API tokens: only their digest is stored, so nothing here can reveal a key. An admin
    revokes keys (a lost laptop, a secretary leaving); keys are issued by the API only."""

    list_display = ("user", "prefix", "created_at", "expires_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__username", "prefix")
    readonly_fields = ("user", "digest", "prefix", "created_at", "expires_at", "revoked_at")
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=gettext_lazy("Revoke the selected API tokens"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        ended = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(
            request,
            ngettext("%d token revoked.", "%d tokens revoked.", ended) % ended,
            messages.SUCCESS,
        )
