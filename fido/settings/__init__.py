"""Settings modules: ``base`` (environment-driven, safe embedded defaults) and ``production``."""
