"""certainty."""
