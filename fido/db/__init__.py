"""Database backends of the project (``fido.db.postgresql``)."""
