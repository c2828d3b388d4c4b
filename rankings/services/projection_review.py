"""The admin's review of a projected list, computed with it and stored beside it.

In: a projected list just written by :func:`rankings.services.projection.projection_refresh`
(on the worker: the nightly beat or the dashboard's refresh). Out: its
:class:`~rankings.models.ProjectionReview`: the anomaly flags of the open month
(:func:`rankings.selectors.anomalies.all_flags`) and the movers against the current list
(:func:`rankings.selectors.review_movers.projection_movers`), in the stored form of
:mod:`rankings.selectors.stored_review`, with the instant the flags were read as of. The
review page reads this record and never asks the questions itself: at full scale they take
about 35 s (docs/review.md). A projection replaced later takes its review with it.
"""

from __future__ import annotations

from matches import clock
from matches.months import Month

from ..models import ProjectionReview, RankingList
from ..selectors import anomalies
from ..selectors.lists import current_list
from ..selectors.projection import projection_info
from ..selectors.review_movers import projection_movers
from ..selectors.stored_review import flags_stored_form, movers_stored_form


def projection_review_record(projected: RankingList) -> ProjectionReview:
    """Ask every review question of ``projected`` (its discipline's open month) and store
    the answers with it."""
    computed_at = clock.now()
    month = Month.of(projected.month)
    flags = anomalies.all_flags(projected.discipline, month, clock.federation_tz())
    current = current_list(discipline=projected.discipline)
    movers = projection_movers(projection_info(projected), current)
    return ProjectionReview.objects.create(
        ranking_list=projected,
        computed_at=computed_at,
        flags=flags_stored_form(flags),
        movers=movers_stored_form(movers),
    )
