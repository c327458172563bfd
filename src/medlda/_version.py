"""The version of medlda (kept in step with pyproject.toml)."""

__version__ = "0.1.0"
