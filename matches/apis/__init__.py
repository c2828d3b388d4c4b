"""REST API views of the matches app, one module per resource."""
