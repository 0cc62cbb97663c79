"""principal."""
