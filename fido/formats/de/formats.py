"""German dates with their periods: "24. November 2026", "24. November 2026, 18:30",
"24. Nov. 2026, 18:30" (``N``: the month's abbreviation with its period where German has
one, "Mai" and "Juni" without)."""

DATE_FORMAT = "j. F Y"
DATETIME_FORMAT = "j. F Y, H:i"
SHORT_DATETIME_FORMAT = "j. N Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
