"""Item pipelines, one concern each, in ``ITEM_PIPELINES`` order: validate, dates, dedupe,
store. Each counts what it did per site (crawl stats and the site's counts)."""
