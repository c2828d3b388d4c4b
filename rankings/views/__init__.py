"""The rankings app's web pages.

- :mod:`~rankings.views.public`: the world ranking, players, clubs, the archive, badges
  (no login);
- :mod:`~rankings.views.dashboard`: the federation admin's cycle dashboard (staff only).

Views check their input, call selectors (reads) or one service (the close), and render;
they hold no query of their own.
"""
