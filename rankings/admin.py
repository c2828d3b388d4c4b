"""Django admin for the rankings app: close runs, errata, ranking lists and their entries, to
read.

They are the published record (and the job's trace): no add, change or delete for anyone,
superusers included (:class:`matches.admin.ReadOnlyAdmin`); closes and errata are made from
the cycle dashboard, through the close service.
"""

from __future__ import annotations

from django.contrib import admin

from matches.admin import ReadOnlyAdmin

from .models import CloseRun, Erratum, RankingEntry, RankingList


@admin.register(RankingList)
class RankingListAdmin(ReadOnlyAdmin):
    list_display = ["discipline", "month", "version", "status", "entry_count", "published_at"]
    list_filter = ["discipline", "status"]


@admin.register(RankingEntry)
class RankingEntryAdmin(ReadOnlyAdmin):
    list_display = ["ranking_list", "rank", "player", "fladub_cents", "results_counted"]
    list_select_related = ["ranking_list", "player"]
    raw_id_fields = ["ranking_list", "player"]
    # A list has up to a million entries: no COUNT(*) of the whole table per page.
    show_full_result_count = False


@admin.register(CloseRun)
class CloseRunAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "discipline", "month", "state", "stage", "percent"]
    list_filter = ["discipline", "state"]
    raw_id_fields = ["ranking_list", "requested_by"]


@admin.register(Erratum)
class ErratumAdmin(ReadOnlyAdmin):
    list_display = ["at", "discipline", "month", "by", "reason", "cause"]
    list_filter = ["discipline"]
    raw_id_fields = ["by", "cause"]
