"""The suite's clock: the federation's time zone and the usual "now" of the tests.

``NOW`` is 20 March 2026, noon in Berlin: inside March 2026's submission window, with
February closed-able and April not yet open; tests that need another moment build it from
``BERLIN``.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
NOW = dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN)
