"""Reports of a fitted model for people: topic and class-topic listings, summaries (``reports``)
and figures (``plots``, needs matplotlib)."""
