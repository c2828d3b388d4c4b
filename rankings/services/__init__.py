"""The rankings app's write side: the close of a month and its run record, the schedule.

- :mod:`~rankings.services.close`: ``month_close`` (the ranking job), its check, its
  enqueueing, the publication;
- :mod:`~rankings.services.close_run`: the run record of a close (creation, progress,
  failure);
- :mod:`~rankings.services.projection`: the projected list (the open month as if it closed
  now, by the close's own functions), refreshed nightly and from the dashboard;
- :mod:`~rankings.services.packs`: packing the published lists that have no pack (lists
  published before packs existed; ``manage.py pack_lists``);
- :mod:`~rankings.services.holds`: holding a discipline's close and releasing it (events
  with who, when and why; the beat skips a held close);
- :mod:`~rankings.services.schedule`: the beat task's body (enqueue the due closes), and
  catching up inline.

Services read through :mod:`rankings.selectors`, enqueue through :mod:`rankings.dispatch`
and never import :mod:`rankings.tasks` (the tasks call the services). The modules import
each other by module, never through this package, which imports none of them.
"""
