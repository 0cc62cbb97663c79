"""recourse."""
