"""Game variants: one module per family, and the protocol a variant implements.

``matches.rules.registry.REGISTRY`` maps the record's ``variant.game`` to a ``Variant``
subclass: ``fido`` (variants/fido.py), ``muggins`` and ``fiveup`` (variants/allfives.py),
``austrian`` (variants/austrian.py, which also holds what Buki and Pulle share),
``buki`` (variants/buki.py) and ``pulle`` (variants/pulle.py). Imports run one way:
the registry imports the variant modules; Buki and Pulle import the Austrian module; every
variant imports ``variants.base``, ``matches.rules.model`` and the helpers, never the
registry nor the loader (:mod:`matches.rules.record`). This package's ``__init__`` imports
nothing.

The protocol (``variants.base.Variant``), in the order the engine calls it:

1. ``__init__(options)``: ``options`` is the record's ``variant`` object without
   ``game``. Validate every option (refuse unknown ones) and set ``self.tiles`` (the
   frozenset of tiles of the set in play: ``tiles.double_set(n)`` or
   ``tiles.austrian_set()``) and ``self.set_name`` (for messages). Raise
   ``RecordError("variant.<key>", message)``.
   Class attributes: ``game`` (registry name), ``seat_counts`` (a range of allowed
   table sizes, checked first), ``record_keys`` / ``game_keys`` (extra
   top-level / per-game JSON keys the variant reads, e.g. ``stakes`` or ``leader``; the
   loader refuses undeclared keys and copies declared ones into ``Record.extra`` /
   ``GameRecord.extra`` untouched, for the variant to validate in ``check_record``).
2. ``check_record(record)``: table-level checks after parsing (number of seats, teams,
   banker, the extra keys). Raise ``RecordError`` with the field's path.
3. ``replay_session(record, partial=False) -> list[GameReport]``: the default calls, for
   each game in order, ``replay_game(record, game, previous, partial=...)`` for a full
   game and ``score_sheet(record, game, previous)`` for a scoresheet game; ``previous``
   is the list of reports of the games before (who won, who placed the last tile...).
   - ``replay_game`` replays the deal (``game.hands``, ``game.stock``) and
     ``game.moves`` (``record.Move``: kind play/draw/pass/stake/raise/bet). It raises
     ``IllegalMove(game=game.index, move=n, player=..., rule=..., message=...)`` at the
     first illegal step (``n`` is 1-based within the game) and returns a
     ``report.GameReport``: one entry per move (build them with ``report.placement``,
     ``report.draw``, ``report.passed``, ``report.event``, so that each placement has
     ``count`` and ``points``), ``end`` (``"domino"``/``"blocked"``, or
     ``"unfinished"`` with ``partial``), ``players`` {seat: PlayerResult(points,
     pips_left, final)}, ``winners`` (seats, all members of a winning team; [] if
     nobody won) and ``sides`` (``report.side_rows``).
   - ``score_sheet`` builds the same from ``game.result`` (``record.Scoresheet``).
4. ``settle(record, games) -> SessionReport``: per player ``total`` and ``money``
   (Decimal; ZERO for games without stakes), ``winners``, ``pool``. The default sums the
   finals and makes the highest side win; Buki and Pulle override it with the ledger.
5. ``simulate(rng, seats, teams, games) -> SimulatedSession`` (used by
   ``matches.rules.simulate``): random legal games drawn only from ``rng``, with the
   simulator's own scores, so that a replay can be checked against them.

Variants must stay pure Python (no Django), use ``int`` for scores and ``Decimal`` for
money, and never mutate the ``Record``.
"""
