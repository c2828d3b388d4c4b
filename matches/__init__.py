"""The match registry and the submission side: clubs, players, matches, submissions; the rules engine in ``rules/``."""
