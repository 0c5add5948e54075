"""Item pipelines, one concern each, ordered in ``ITEM_PIPELINES``: validate, dates, dedupe."""
