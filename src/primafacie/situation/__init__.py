"""situation."""
