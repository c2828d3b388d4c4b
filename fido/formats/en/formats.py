"""English dates: "24 November 2026", "24 November 2026, 18:30", "24 Nov 2026, 18:30"."""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
