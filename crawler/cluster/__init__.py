"""Several machines: a run's sites over Scrapyd nodes that share one PostgreSQL store."""
