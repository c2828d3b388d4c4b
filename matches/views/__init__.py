"""Server-rendered pages of the matches app, one module per audience."""
