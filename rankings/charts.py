"""Small server-side SVG charts for the public pages: no JavaScript, no library, no Django.

:func:`line_chart` draws one or more series over a common sequence of x labels (months) and
returns a self-contained ``<svg>`` element as a string:

- In: ``labels`` (one per x position, e.g. ``"2026-03"``), ``series`` (each a label and one
  value per x position, ``None`` where there is no value: the line breaks there), a title
  and a description (the accessible name and summary of the chart), and options: size,
  ``invert`` (a rank axis: 1 at the top), ``integer`` ticks, a number format for values.
- Out: well-formed SVG 1.1 markup (parseable by any XML parser) with ``role="img"``,
  ``<title>`` and ``<desc>`` referenced by ``aria-labelledby``; one ``<polyline>`` per run
  of consecutive values and one ``<circle>`` per value carrying its own ``<title>`` (the
  tooltip "2026-03: 431.07"); horizontal grid lines at "nice" ticks with their labels; x
  labels thinned so they never overlap. All text is XML-escaped. Colours come from CSS
  classes (``chart-line``, ``chart-point``, ``chart-grid``, ``chart-axis``) with inline
  fallbacks, so the chart reads without the stylesheet too.
- Guaranteed: deterministic output (same input, same bytes); no value is dropped or
  invented; an all-``None`` or empty chart still renders (axes and a "no data" note).

The page that shows a chart also shows the same numbers as a table: the chart is an
illustration, the table is the accessible record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

Number = float | int

PALETTE = ("#0b5cad", "#c2410c", "#1a7f37", "#7c3aed")


@dataclass(frozen=True)
class Series:
    """One line: its legend label and one value (or None) per x position."""

    label: str
    values: Sequence[Number | None]


def nice_ticks(low: float, high: float, *, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values covering ``low..high``: steps of 1, 2 or 5 times a power of ten.

    >>> nice_ticks(0, 431.07)
    [0.0, 100.0, 200.0, 300.0, 400.0, 500.0]
    >>> nice_ticks(3, 3, integer=True)
    [2.0, 3.0, 4.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError("ticks need finite bounds")
    if low > high:
        low, high = high, low
    if high == low:
        pad = 1.0 if integer or low == 0 else abs(low) * 0.1
        low, high = low - pad, high + pad
    raw_step = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw_step))
    # The nice step nearest to the raw one (Heckbert's "nice numbers"): about ``count`` ticks.
    fraction = raw_step / magnitude
    step = magnitude * (1 if fraction < 1.5 else 2 if fraction < 3 else 5 if fraction < 7 else 10)
    if integer:
        step = max(1.0, math.ceil(step))
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    n = round((last - first) / step)
    return [float(round(first + i * step, 10)) for i in range(n + 1)]


def _fmt(value: float) -> str:
    """A coordinate with at most one decimal: short, stable output."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _default_format(value: float) -> str:
    return f"{value:.2f}"


@dataclass(frozen=True)
class _Frame:
    """Where things go: the plot area inside the margins, the y range of the ticks."""

    labels: Sequence[str]
    ticks: list[float]
    left: int
    top: int
    plot_w: int
    plot_h: int
    invert: bool

    @property
    def y_low(self) -> float:
        return self.ticks[0]

    @property
    def y_high(self) -> float:
        return self.ticks[-1] if self.ticks[-1] != self.ticks[0] else self.ticks[0] + 1

    def x_at(self, i: int) -> float:
        if len(self.labels) == 1:
            return self.left + self.plot_w / 2
        return self.left + self.plot_w * i / (len(self.labels) - 1)

    def y_at(self, value: float) -> float:
        share = (value - self.y_low) / (self.y_high - self.y_low)
        return self.top + (share if self.invert else 1 - share) * self.plot_h


def line_chart(
    *,
    labels: Sequence[str],
    series: Sequence[Series],
    title: str,
    desc: str,
    chart_id: str,
    width: int = 420,
    height: int = 240,
    invert: bool = False,
    integer: bool = False,
    value_format: Callable[[float], str] = _default_format,
    tick_format: Callable[[float], str] | None = None,
    no_data: str = "No data",
) -> str:
    """An accessible SVG line chart; see the module docstring for the contract.

    ``chart_id`` prefixes the ids of ``<title>`` and ``<desc>`` (unique per page).
    ``invert`` puts the smallest value at the top (ranks). ``tick_format`` formats the
    y-axis labels (default: ``value_format`` without decimals when ticks are whole).
    """
    _check(labels, series, width, height)
    bottom = 34 + (18 if len(series) > 1 else 0)  # room for the legend
    values = [v for line in series for v in line.values if v is not None]
    frame = _Frame(
        labels=labels,
        ticks=_ticks(values, integer=integer, invert=invert),
        left=52,
        top=14,
        plot_w=width - 52 - 28,
        plot_h=height - 14 - bottom,
        invert=invert,
    )
    if tick_format is None:
        tick_format = _tick_format(frame.ticks, value_format)
    title_id, desc_id = f"{chart_id}-title", f"{chart_id}-desc"
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{title_id} {desc_id}" id={quoteattr(chart_id)}>',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
        *_grid(frame),
        *_axes(frame, tick_format),
    ]
    if not values:
        out.append(
            f'<text class="chart-empty" x="{_fmt(frame.left + frame.plot_w / 2)}" '
            f'y="{_fmt(frame.top + frame.plot_h / 2)}" text-anchor="middle" fill="#5b6570" '
            f'font-family="sans-serif">{escape(no_data)}</text>'
        )
    for n, line in enumerate(series):
        out += _series(frame, n, line, value_format)
    if len(series) > 1:
        out += _legend(series, left=frame.left, baseline=height - 8)
    out.append("</svg>")
    return "\n".join(out)


def _check(labels: Sequence[str], series: Sequence[Series], width: int, height: int) -> None:
    for line in series:
        if len(line.values) != len(labels):
            raise ValueError(
                f"series {line.label!r} has {len(line.values)} values, not {len(labels)}"
            )
    if width < 120 or height < 80:
        raise ValueError("the chart needs at least 120 x 80 px")


def _ticks(values: list[Number], *, integer: bool, invert: bool) -> list[float]:
    if not values:
        return [0.0, 1.0]
    ticks = nice_ticks(min(values), max(values), integer=integer)
    if invert:
        # Ranks start at 1: a tick at 0 becomes 1 (the top of the axis).
        ticks = sorted({max(t, 1.0) for t in ticks})
    return ticks


def _tick_format(
    ticks: list[float], value_format: Callable[[float], str]
) -> Callable[[float], str]:
    whole = all(float(t).is_integer() for t in ticks)

    def tick_format(value: float) -> str:
        return f"{value:.0f}" if whole else value_format(value)

    return tick_format


def _grid(frame: _Frame) -> list[str]:
    """A horizontal line at every tick."""
    lines = ['<g class="chart-grid" stroke="#d9dde1" stroke-width="1">']
    for tick in frame.ticks:
        y = _fmt(frame.y_at(tick))
        lines.append(
            f'<line x1="{frame.left}" x2="{frame.left + frame.plot_w}" y1="{y}" y2="{y}"/>'
        )
    lines.append("</g>")
    return lines


def _axes(frame: _Frame, tick_format: Callable[[float], str]) -> list[str]:
    """The y labels at the ticks and the x labels, thinned to about one per 64 px (always
    the last one), so that they never overlap."""
    out = ['<g class="chart-axis" fill="#5b6570" font-size="12" font-family="sans-serif">']
    for tick in frame.ticks:
        y = _fmt(frame.y_at(tick) + 4)
        label = escape(tick_format(tick))
        out.append(f'<text x="{frame.left - 6}" y="{y}" text-anchor="end">{label}</text>')
    count = len(frame.labels)
    every = max(1, math.ceil(count * 64 / max(frame.plot_w, 1)))
    for i in range(count):
        if (count - 1 - i) % every == 0:
            out.append(
                f'<text x="{_fmt(frame.x_at(i))}" y="{frame.top + frame.plot_h + 16}" '
                f'text-anchor="middle">{escape(frame.labels[i])}</text>'
            )
    out.append("</g>")
    return out


def _series(frame: _Frame, n: int, line: Series, value_format: Callable[[float], str]) -> list[str]:
    """One series: a polyline per run of consecutive values, a point (with its tooltip) per
    value."""
    colour = PALETTE[n % len(PALETTE)]
    out = [f'<g class="chart-series chart-series-{n}" data-series={quoteattr(line.label)}>']
    runs: list[list[str]] = [[]]
    for i, value in enumerate(line.values):
        if value is None:
            runs.append([])
        else:
            runs[-1].append(f"{_fmt(frame.x_at(i))},{_fmt(frame.y_at(value))}")
    for points in runs:
        if len(points) > 1:
            out.append(
                f'<polyline class="chart-line" fill="none" stroke="{colour}" '
                f'stroke-width="2.5" stroke-linejoin="round" points="{" ".join(points)}"/>'
            )
    for i, value in enumerate(line.values):
        if value is None:
            continue
        tip = f"{escape(frame.labels[i])}: {escape(value_format(value))}"
        out.append(
            f'<circle class="chart-point" cx="{_fmt(frame.x_at(i))}" '
            f'cy="{_fmt(frame.y_at(value))}" r="3.5" fill="{colour}"><title>{tip}</title></circle>'
        )
    out.append("</g>")
    return out


def _legend(series: Sequence[Series], *, left: int, baseline: int) -> list[str]:
    out = ['<g class="chart-legend" font-size="12" font-family="sans-serif" fill="#1b1f24">']
    x = left
    for n, line in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        out.append(f'<rect x="{x}" y="{baseline - 9}" width="12" height="4" fill="{colour}"/>')
        out.append(f'<text x="{x + 16}" y="{baseline}">{escape(line.label)}</text>')
        x += 24 + 7 * len(line.label)
    out.append("</g>")
    return out
