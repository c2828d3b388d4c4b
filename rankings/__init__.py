"""FLADUB and the monthly cycle: ranking lists, the close of a month, the ranking job."""
