"""The ranking side of the REST API (mounted under ``/api/``; public, no login; throttled
like every API view). Routes: ``rankings/api_urls.py``.

- :mod:`~rankings.apis.lists`: ``GET /api/rankings/{discipline}`` (the current list) and
  ``.../{YYYY-MM}`` (a month's), paged and filtered; ``.../lists`` (the archive);
  ``.../{YYYY-MM}.csv`` / ``.json`` (a whole list, streamed);
- :mod:`~rankings.apis.projection`: ``GET /api/rankings/{discipline}/projected`` (the
  projected list, paged like a month's, with ``provisional`` and ``as_of``);
- :mod:`~rankings.apis.ledger`: ``GET .../players/{player_id}/ledger[?month=YYYY-MM]``
  (why the number and rank changed, in parts that add up exactly, and in sentences);
- :mod:`~rankings.apis.forecast`: ``GET .../players/{player_id}/forecast`` (the next 12
  numbers if the player plays nothing, and the results leaving when);
- :mod:`~rankings.apis.players`: ``GET /api/rankings/{discipline}/players/{player_id}``
  (FLADUB and rank per month) and ``.../results[?month=YYYY-MM]`` (every result counting
  in a list, with its weight);
- :mod:`~rankings.apis.inputs`: the checks of path and query parameters they share.

They read through the same selectors as the pages (:mod:`rankings.selectors`), so a page
and the API show the same numbers. Errors: ``{"errors": [{"path", "message"}]}``
(:mod:`matches.apis.errors`): 400 for a bad month (``2026-13``) or page, 404 for an
unknown discipline, list or player.
"""
