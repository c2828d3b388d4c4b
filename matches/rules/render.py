"""Draw the final layout of a replayed game as an SVG schematic. Pure Python, no Django.

In: one game of a loaded ``Record`` (``record.GameRecord``) whose moves the engine has
accepted (``engine.replay_record`` did not raise), and the highest pip value of the set.
Out: ``layout(game)`` -> a ``Layout`` (every placed tile with its position), and
``svg(game, ...)`` -> the SVG markup as text (no XML declaration, ready to inline in HTML).
Guaranteed: every tile the game placed appears exactly once, as one ``<g class="tile">``
carrying ``data-tile="a-b"`` (high end first), a ``<title>`` and a visible ``a-b``
label; a game without placements (a scoresheet) draws an empty layout. All text that
comes from the record (player names) is escaped.

The drawing is a schematic, the same for every game, built from what the record says:
each placement names the tile it goes ``on`` and the ``facet`` (end or cross side), so
the layout is a tree rooted at the lead.
- The main row is the line through the lead: the chain grown from its first open end to
  the right, the chain from its second open end to the left. A non-double lead ``a-b``
  is drawn ``[a|b]``: tiles joined on ``a`` grow left, on ``b`` right.
- A chain continues through a tile's first child on an end. Every other child starts a
  branch: a cross side (FIDO's free cross sides of doubles, an All Fives spinner's cross
  ends, dashed connector) or a second open end (FIDO doubles have two; solid connector).
  A branch is its own row below, starting just right of its parent tile, joined to it by
  an L-shaped connector.
- Rows are laid out depth first, the branches of one row from its rightmost parent to its
  leftmost, each on the highest row that has nothing under it between its connector and
  its last tile. Rows only grow rightwards, so the space under a row stays free for its
  own branches: connectors never cross a tile, and tiles never overlap.
So a Muggins spinner shows its two cross arms as two rows hanging from it, a FIDO opening
double its two cross-side arms, an Austrian line is one row of bricks. Doubles stand
upright (crosswise), other tiles lie flat with the joined value facing their parent.
Sets up to double-9 show pips, bigger sets show numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape

from matches.rules.model import PLAY, GameRecord
from matches.rules.tiles import TEXT, Tile

#: Size of one half of a tile (a square), in SVG user units (px at 100%).
UNIT = 24
GAP = 4  # between tiles of a row
INDENT = 14  # how far right of its parent's centre a branch row starts
LABEL = 13  # band above the tiles for the a-b labels
ROW_GAP = 10
MARGIN = 8
ROW_HEIGHT = LABEL + 2 * UNIT + ROW_GAP

#: Pip positions on a 3x3 grid (column, row), for values 0..9.
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
    7: ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2)),
    8: ((0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)),
    9: tuple((c, r) for r in range(3) for c in range(3)),
}
MAX_PIPS_DRAWN = 9


@dataclass(frozen=True, slots=True)
class Placed:
    """One placement of the game: move number ``n`` (1-based, as in the report), who,
    which tile, on which tile (None for the lead), the facet and the value joined."""

    n: int
    player: str
    tile: Tile
    on: Tile | None
    facet: str  # "lead", "end" or "cross"
    joined: int | None


@dataclass(slots=True)
class DrawnTile:
    """A placed tile's box: top-left ``x``, ``y``, and the values shown on its two halves
    (left/right when lying flat, top/bottom when upright)."""

    placed: Placed
    x: float
    y: float
    upright: bool
    first: int
    second: int
    lead: bool = False
    leftwards: bool = False  # the tile's chain grows to the left (its branches too)

    @property
    def width(self) -> int:
        return UNIT if self.upright else 2 * UNIT

    @property
    def height(self) -> int:
        return 2 * UNIT if self.upright else UNIT

    @property
    def centre_x(self) -> float:
        return self.x + self.width / 2


@dataclass(slots=True)
class Connector:
    """The L from a parent tile down to the start of its branch row."""

    x: float
    y_from: float
    y_to: float
    x_to: float
    cross: bool


@dataclass(slots=True)
class Layout:
    tiles: list[DrawnTile] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)
    width: float = 2 * MARGIN
    height: float = 2 * MARGIN

    def labels(self) -> list[str]:
        return [TEXT[t.placed.tile] for t in self.tiles]


def placements(game: GameRecord) -> list[Placed]:
    """The game's placements in order, each with the value it joins on its parent."""
    out: list[Placed] = []
    for n, move in enumerate(game.moves, 1):
        if move.kind != PLAY or move.tile is None:
            continue
        tile, on = move.tile, move.on
        if on is None:
            out.append(Placed(n, move.player or "", tile, None, "lead", None))
            continue
        if on[0] == on[1]:
            joined = on[0]
        else:
            # Distinct tiles share at most one value with a non-double: that is the join.
            common = {tile[0], tile[1]} & {on[0], on[1]}
            joined = max(common) if common else tile[0]
        facet = "cross" if move.facet == "cross" else "end"
        out.append(Placed(n, move.player or "", tile, on, facet, joined))
    return out


def layout(game: GameRecord) -> Layout:
    """Place every tile of ``game`` (see the module docstring for the scheme)."""
    placed = placements(game)
    if not placed:
        return Layout()
    return _Layouter(placed).run()


class _Layouter:
    """One game's layout in the making: the tree of placements (``children`` by the tile
    they join), the rows already laid out and the slots they occupy."""

    def __init__(self, placed: list[Placed]) -> None:
        self.placed = placed
        self.lead = placed[0]
        self.children: dict[Tile, list[Placed]] = {}
        for p in placed[1:]:
            if p.on is not None:
                self.children.setdefault(p.on, []).append(p)
        self.left_start, self.right_start = self._main_row_starts()
        self.drawn: set[int] = set()  # ids of the placements already laid out
        self.slots = _Slots()
        self.result = Layout()

    def _main_row_starts(self) -> tuple[Placed | None, Placed | None]:
        """The first tiles of the main row's left and right arms: the lead's open ends."""
        lead = self.lead
        ends = [c for c in self.children.get(lead.tile, ()) if c.facet == "end"]
        if lead.tile.is_double:
            return (ends[1] if len(ends) > 1 else None), (ends[0] if ends else None)
        left = next((c for c in ends if c.joined == lead.tile[0]), None)
        right = next((c for c in ends if c.joined == lead.tile[1]), None)
        return left, right

    def run(self) -> Layout:
        # The lead at x = 0 for now; everything is shifted into view at the end.
        lead_tile = self.place_row([self.lead], 0.0, False)
        main = self.place_row(self.chain(self.left_start), -GAP, True)[::-1] + lead_tile
        main += self.place_row(self.chain(self.right_start), lead_tile[0].width + GAP, False)
        self.put(main, 0)
        self.emit(main, 0)
        # Defensive: anything a malformed tree left unreached still gets drawn, once.
        stray = [p for p in self.placed if id(p) not in self.drawn]
        if stray:
            self.put(self.place_row(stray, 0.0, False), self.slots.count)
        return self._into_view()

    def _into_view(self) -> Layout:
        """Shift everything right of the margin and size the picture."""
        result = self.result
        shift = MARGIN - min(t.x for t in result.tiles)
        for t in result.tiles:
            t.x += shift
        for c in result.connectors:
            c.x += shift
            c.x_to += shift
        result.width = max(t.x + t.width for t in result.tiles) + MARGIN
        result.height = MARGIN + self.slots.count * ROW_HEIGHT - ROW_GAP + MARGIN
        return result

    def continuation(self, p: Placed) -> Placed | None:
        return next((c for c in self.children.get(p.tile, ()) if c.facet == "end"), None)

    def chain(self, start: Placed | None) -> list[Placed]:
        out: list[Placed] = []
        seen: set[Tile] = set()
        while start is not None and start.tile not in seen:  # a legal layout is a tree
            seen.add(start.tile)
            out.append(start)
            start = self.continuation(start)
        return out

    def place_row(self, chain_: Iterable[Placed], x0: float, leftwards: bool) -> list[DrawnTile]:
        """Lay a chain from ``x0`` rightwards, or leftwards from the right edge ``x0``;
        the joined value of each tile faces the tile before it. y is set by ``put``."""
        row = []
        x = x0
        for p in chain_:
            if p.facet == "lead":
                first, second = p.tile[0], p.tile[1]
            else:
                joined = p.joined if p.joined is not None else p.tile[0]
                other = p.tile.other(joined) if p.tile.has(joined) else p.tile[1]
                first, second = (other, joined) if leftwards else (joined, other)
            tile = DrawnTile(p, x, 0.0, p.tile.is_double, first, second, lead=p.facet == "lead")
            tile.leftwards = leftwards
            if leftwards:
                tile.x = x - tile.width
                x = tile.x - GAP
            else:
                x += tile.width + GAP
            row.append(tile)
            self.drawn.add(id(p))
        return row

    def put(self, row: list[DrawnTile], slot: int) -> None:
        centre = _slot_top(slot) + UNIT
        for tile in row:
            tile.y = centre - tile.height / 2
            self.slots.occupy(slot, _extent(tile))
        self.result.tiles.extend(row)

    def is_continuation(self, parent: DrawnTile, child: Placed) -> bool:
        if parent.placed.facet == "lead":
            return child is self.left_start or child is self.right_start
        return self.continuation(parent.placed) is child

    def emit(self, row: list[DrawnTile], slot: int) -> None:
        """Add the branches of ``row`` (already put on ``slot``), depth first: rightward
        branches from the rightmost parent first, then leftward ones from the leftmost, so
        that what is already laid out lies beyond every parent still to come."""
        branches = [
            (t, c)
            for t in row
            for c in self.children.get(t.placed.tile, ())
            if not self.is_continuation(t, c)
        ]
        branches.sort(
            key=lambda tc: (
                tc[0].leftwards,
                tc[0].centre_x if tc[0].leftwards else -tc[0].centre_x,
                tc[1].n,
            )
        )
        for parent, child in branches:
            if id(child) not in self.drawn:
                self.branch(parent, child, slot)

    def branch(self, parent: DrawnTile, child: Placed, slot: int) -> None:
        """Lay the chain starting at ``child`` on the first free row below ``slot``, joined
        to ``parent`` by a connector, then its own branches."""
        x_line = parent.centre_x
        leftwards = parent.leftwards
        x0 = x_line - INDENT if leftwards else x_line + INDENT
        row = self.place_row(self.chain(child), x0, leftwards)
        if leftwards:
            span = (min(_extent(t)[0] for t in row), x_line + LINE_PAD)
            elbow = (x0, x_line + LINE_PAD)
        else:
            span = (x_line - LINE_PAD, max(_extent(t)[1] for t in row))
            elbow = (x_line - LINE_PAD, x0)
        target = self.slots.below_all(slot, span)
        for between in range(slot + 1, target):
            self.slots.occupy(between, (x_line - LINE_PAD, x_line + LINE_PAD))
        self.slots.occupy(target, elbow)
        self.put(row, target)
        self.result.connectors.append(
            Connector(
                x_line,
                parent.y + parent.height,
                _slot_top(target) + UNIT,
                x0,
                child.facet == "cross",
            )
        )
        self.emit(row, target)


LINE_PAD = 4  # room kept free either side of a connector's vertical line


def _slot_top(slot: int) -> float:
    """The top of the tile band of row ``slot`` (its label band is just above)."""
    return MARGIN + slot * ROW_HEIGHT + LABEL


def _extent(tile: DrawnTile) -> tuple[float, float]:
    """What a tile occupies horizontally, its label included (about 6 units a character)."""
    half_label = 3.2 * len(TEXT[tile.placed.tile]) + 2
    return (
        min(tile.x, tile.centre_x - half_label) - GAP / 2,
        max(tile.x + tile.width, tile.centre_x + half_label) + GAP / 2,
    )


class _Slots:
    """Horizontal occupancy of each row: tiles, their labels and connector lines."""

    def __init__(self) -> None:
        self.busy: list[list[tuple[float, float]]] = []

    @property
    def count(self) -> int:
        return len(self.busy)

    def occupy(self, slot: int, span: tuple[float, float]) -> None:
        while len(self.busy) <= slot:
            self.busy.append([])
        self.busy[slot].append(span)

    def free(self, slot: int, span: tuple[float, float]) -> bool:
        if slot >= len(self.busy):
            return True
        lo, hi = span
        return all(hi <= a or b <= lo for a, b in self.busy[slot])

    def below_all(self, parent: int, span: tuple[float, float]) -> int:
        """The highest row below ``parent`` with nothing under it in ``span``: one past the
        lowest row that has anything there. A branch placed so keeps the space under it
        free, so the connectors of its own branches never cross a tile."""
        lo, hi = span
        lowest = parent
        for slot in range(parent + 1, len(self.busy)):
            if any(not (hi <= a or b <= lo) for a, b in self.busy[slot]):
                lowest = slot
        return lowest + 1


def _width(p: Placed) -> int:
    return UNIT if p.tile.is_double else 2 * UNIT


def svg(
    game: GameRecord,
    *,
    max_value: int,
    labelledby: str | None = None,
    css_class: str = "layout",
) -> str:
    """The SVG markup of ``game``'s final layout. ``max_value`` is the highest pip value of
    the set (pips are drawn up to 9, numbers above); ``labelledby`` the id of the element
    that describes the drawing (the page's caption, translated by the caller)."""
    drawing = layout(game)
    pips = max_value <= MAX_PIPS_DRAWN
    w, h = round(drawing.width), round(drawing.height)
    aria = f' aria-labelledby="{escape(labelledby)}"' if labelledby else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{escape(css_class)}" role="img"'
        f'{aria} width="{w}" height="{h}" viewBox="0 0 {w} {h}"'
        f' data-tiles="{len(drawing.tiles)}">'
    ]
    for c in drawing.connectors:
        dash = ' stroke-dasharray="4 3"' if c.cross else ""
        kind = "cross" if c.cross else "end"
        out.append(
            f'<path class="link link-{kind}" d="M{c.x:g} {c.y_from:g}V{c.y_to:g}H{c.x_to:g}"'
            f' fill="none" stroke="#6b7785" stroke-width="1.5"{dash}/>'
        )
    for t in drawing.tiles:
        out.append(_tile_svg(t, pips))
    out.append("</svg>")
    return "".join(out)


def _tile_svg(t: DrawnTile, pips: bool) -> str:
    p = t.placed
    label = TEXT[p.tile]
    title = f"{label} · {p.n} · {p.player}" if p.player else label
    classes = "tile" + (" lead" if t.lead else "") + (" double" if p.tile.is_double else "")
    stroke = "#0b5cad" if t.lead else "#1b1f24"
    width = 2.5 if t.lead else 1.2
    parts = [
        f'<g class="{classes}" data-tile="{label}" data-n="{p.n}"'
        f' data-facet="{p.facet}"><title>{escape(title)}</title>',
        f'<rect x="{t.x:g}" y="{t.y:g}" width="{t.width}" height="{t.height}" rx="4"'
        f' fill="#fffdf5" stroke="{stroke}" stroke-width="{width}"/>',
    ]
    if t.upright:
        halves = ((t.x, t.y, t.first), (t.x, t.y + UNIT, t.second))
        parts.append(
            f'<line x1="{t.x + 4:g}" y1="{t.y + UNIT:g}" x2="{t.x + UNIT - 4:g}"'
            f' y2="{t.y + UNIT:g}" stroke="#1b1f24" stroke-width="1"/>'
        )
    else:
        halves = ((t.x, t.y, t.first), (t.x + UNIT, t.y, t.second))
        parts.append(
            f'<line x1="{t.x + UNIT:g}" y1="{t.y + 4:g}" x2="{t.x + UNIT:g}"'
            f' y2="{t.y + UNIT - 4:g}" stroke="#1b1f24" stroke-width="1"/>'
        )
    for hx, hy, value in halves:
        parts.append(_half(hx, hy, value, pips))
    parts.append(
        f'<text class="label" x="{t.centre_x:g}" y="{t.y - 3:g}" text-anchor="middle"'
        f' font-size="10" fill="#5b6570">{label}</text></g>'
    )
    return "".join(parts)


def _half(x: float, y: float, value: int, pips: bool) -> str:
    if pips and value <= MAX_PIPS_DRAWN:
        step = UNIT / 4
        return "".join(
            f'<circle cx="{x + step * (c + 1):g}" cy="{y + step * (r + 1):g}" r="2.2"'
            f' fill="#1b1f24"/>'
            for c, r in PIPS[value]
        )
    return (
        f'<text x="{x + UNIT / 2:g}" y="{y + UNIT / 2 + 4.5:g}" text-anchor="middle"'
        f' font-size="13" font-weight="700" fill="#1b1f24">{value}</text>'
    )


def max_value(tiles: Iterable[Tile]) -> int:
    """The highest pip value among ``tiles`` (the set in play): decides pips or numbers."""
    return max((t[0] for t in tiles), default=0)
