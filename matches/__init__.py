"""The match registry and the submission side (clubs, players, matches, submissions).

The rules engine lives in ``matches.rules`` and imports nothing from Django.
"""
