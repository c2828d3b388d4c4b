"""The rankings app's read side: one function per question, in a module named after it.

Pages, the API, the downloads and the close call these functions; none of them writes.
Results are plain data classes (rows of :mod:`rankings.sql`) or model instances with what
the reader uses loaded.

- :mod:`~rankings.selectors.lists`: the current lists, a month's list, the archive;
- :mod:`~rankings.selectors.list_page`: a page of a list, whole or filtered (the ranking
  page, the API, the home page);
- :mod:`~rankings.selectors.list_export`: a whole list, row by row (downloads,
  ``export_ranking``);
- :mod:`~rankings.selectors.players`: a player by federation id, through merges;
- :mod:`~rankings.selectors.player_history`: a player's place in every published list;
- :mod:`~rankings.selectors.counting_results`: a player's counting results with their
  weights, today and next month;
- :mod:`~rankings.selectors.strength_lists`: the published lists opponent strength is read
  from;
- :mod:`~rankings.selectors.window`: everything the close of a month computes from;
- :mod:`~rankings.selectors.clubs`: the clubs, a club's page;
- :mod:`~rankings.selectors.projection`: the projected list of the open month (provisional)
  and a player's place in it;
- :mod:`~rankings.selectors.ledger`: why a player's number and rank changed from the list
  before (the parts of :mod:`rankings.ledger`);
- :mod:`~rankings.selectors.forecast`: the drop-out calendar, a player's next 12 numbers if
  they play nothing;
- :mod:`~rankings.selectors.holds`: whether a discipline's close is held;
- :mod:`~rankings.selectors.cycle`: the open month, the months due, an active close;
- :mod:`~rankings.selectors.dashboard`: the cycle dashboard;
- :mod:`~rankings.selectors.navigation`: what the navigation knows of the reader.

The modules import each other by module (``from .lists import current_lists``), never
through this package, which imports none of them.
"""
