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
    for line in series:
        if len(line.values) != len(labels):
            raise ValueError(
                f"series {line.label!r} has {len(line.values)} values, not {len(labels)}"
            )
    if width < 120 or height < 80:
        raise ValueError("the chart needs at least 120 x 80 px")

    left, right, top, bottom = 52, 28, 14, 34
    if len(series) > 1:
        bottom += 18  # room for the legend
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [v for line in series for v in line.values if v is not None]
    if values:
        ticks = nice_ticks(min(values), max(values), integer=integer)
        if invert:
            # Ranks start at 1: a tick at 0 becomes 1 (the top of the axis).
            ticks = sorted({max(t, 1.0) for t in ticks})
    else:
        ticks = [0.0, 1.0]
    y_low, y_high = ticks[0], ticks[-1]
    if y_high == y_low:
        y_high = y_low + 1

    def x_at(i: int) -> float:
        if len(labels) == 1:
            return left + plot_w / 2
        return left + plot_w * i / (len(labels) - 1)

    def y_at(value: float) -> float:
        share = (value - y_low) / (y_high - y_low)
        return top + (share if invert else 1 - share) * plot_h

    if tick_format is None:
        whole = all(float(t).is_integer() for t in ticks)

        def tick_format(value: float) -> str:
            return f"{value:.0f}" if whole else value_format(value)

    title_id, desc_id = f"{chart_id}-title", f"{chart_id}-desc"
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{title_id} {desc_id}" id={quoteattr(chart_id)}>',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
        '<g class="chart-grid" stroke="#d9dde1" stroke-width="1">',
    ]
    for tick in ticks:
        y = _fmt(y_at(tick))
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y}" y2="{y}"/>')
    out.append("</g>")
    out.append('<g class="chart-axis" fill="#5b6570" font-size="12" font-family="sans-serif">')
    for tick in ticks:
        y = _fmt(y_at(tick) + 4)
        label = escape(tick_format(tick))
        out.append(f'<text x="{left - 6}" y="{y}" text-anchor="end">{label}</text>')
    # Thin the x labels: about one per 64 px, always the last one.
    every = max(1, math.ceil(len(labels) * 64 / max(plot_w, 1)))
    shown = {i for i in range(len(labels)) if (len(labels) - 1 - i) % every == 0}
    for i in sorted(shown):
        out.append(
            f'<text x="{_fmt(x_at(i))}" y="{top + plot_h + 16}" text-anchor="middle">'
            f"{escape(labels[i])}</text>"
        )
    out.append("</g>")

    if not values:
        out.append(
            f'<text class="chart-empty" x="{_fmt(left + plot_w / 2)}" y="{_fmt(top + plot_h / 2)}" '
            f'text-anchor="middle" fill="#5b6570" font-family="sans-serif">{escape(no_data)}</text>'
        )
    for n, line in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        out.append(f'<g class="chart-series chart-series-{n}" data-series={quoteattr(line.label)}>')
        run: list[str] = []
        runs: list[list[str]] = []
        for i, value in enumerate(line.values):
            if value is None:
                if run:
                    runs.append(run)
                run = []
                continue
            run.append(f"{_fmt(x_at(i))},{_fmt(y_at(value))}")
        if run:
            runs.append(run)
        for points in runs:
            if len(points) > 1:
                out.append(
                    f'<polyline class="chart-line" fill="none" stroke="{colour}" '
                    f'stroke-width="2.5" stroke-linejoin="round" points="{" ".join(points)}"/>'
                )
        for i, value in enumerate(line.values):
            if value is None:
                continue
            tip = f"{escape(labels[i])}: {escape(value_format(value))}"
            out.append(
                f'<circle class="chart-point" cx="{_fmt(x_at(i))}" cy="{_fmt(y_at(value))}" '
                f'r="3.5" fill="{colour}"><title>{tip}</title></circle>'
            )
        out.append("</g>")
    if len(series) > 1:
        legend_x, legend_y = left, height - 8
        out.append(
            '<g class="chart-legend" font-size="12" font-family="sans-serif" fill="#1b1f24">'
        )
        for n, line in enumerate(series):
            colour = PALETTE[n % len(PALETTE)]
            out.append(
                f'<rect x="{legend_x}" y="{legend_y - 9}" width="12" height="4" fill="{colour}"/>'
            )
            out.append(f'<text x="{legend_x + 16}" y="{legend_y}">{escape(line.label)}</text>')
            legend_x += 24 + 7 * len(line.label)
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
