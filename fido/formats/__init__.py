"""The site's date formats per language (``FORMAT_MODULE_PATH``; Django's own formats fill in
the rest). Templates name them (``|date:"DATE_FORMAT"``) instead of writing a pattern, so
that a German date has its periods: "24. November 2026", "24. Nov. 2026, 18:30"."""
