"""CLI command groups; each module exposes ``register(app)`` and is listed in ``cli.py``."""
