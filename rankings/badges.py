"""A shields.io-style SVG badge: a grey label on the left, a coloured message on the right.

Pure function, no Django: :func:`badge_svg` takes the two texts and a colour and returns the
SVG document (well-formed XML, ``role="img"``, its text in ``<title>`` and ``aria-label``).
Text widths are estimated from per-character widths of Verdana 11px (the font shields.io
uses), so the boxes fit the text in every browser without measuring it.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

# Verdana 11px advance widths (px) of common characters; others count as WIDE or DEFAULT.
_WIDTHS: dict[str, float] = {
    **dict.fromkeys("ijl|!.,:;'", 3.1),
    **dict.fromkeys("frt()[]{}/\\ -", 4.6),
    **dict.fromkeys("Iabcdeghknopqsuvxyz0123456789·?*+=<>_$#", 7.0),
    **dict.fromkeys("ABCDEFGHJKLNOPQRSTUVXYZ", 7.7),
    **dict.fromkeys("mwMW%@", 10.8),
}
DEFAULT_WIDTH = 7.2
PADDING = 6

GREEN = "#1a7f37"
BLUE = "#0b5cad"
GREY = "#5b6570"
LABEL_GREY = "#3b4450"


def text_width(text: str) -> float:
    """The estimated width of ``text`` in Verdana 11px."""
    return sum(_WIDTHS.get(ch, DEFAULT_WIDTH) for ch in text)


def badge_svg(label: str, message: str, colour: str = BLUE) -> str:
    """The badge as an SVG document (20 px high, width fitted to the texts)."""
    left = round(text_width(label) + 2 * PADDING)
    right = round(text_width(message) + 2 * PADDING)
    width = left + right
    whole = f"{label}: {message}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" '
        f'viewBox="0 0 {width} 20" role="img" aria-label={quoteattr(whole)}>'
        f"<title>{escape(whole)}</title>"
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        '<g clip-path="url(#r)">'
        f'<rect width="{left}" height="20" fill="{LABEL_GREY}"/>'
        f'<rect x="{left}" width="{right}" height="20" fill={quoteattr(colour)}/>'
        f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" '
        'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:.1f}" y="15" fill="#010101" fill-opacity=".3" aria-hidden="true">'
        f"{escape(label)}</text>"
        f'<text x="{left / 2:.1f}" y="14">{escape(label)}</text>'
        f'<text x="{left + right / 2:.1f}" y="15" fill="#010101" fill-opacity=".3" '
        f'aria-hidden="true">{escape(message)}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{escape(message)}</text>'
        "</g></svg>"
    )
