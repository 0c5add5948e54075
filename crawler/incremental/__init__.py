"""Incremental crawling: the middleware (what passes by), the manager (what the store says)
and the rules (the decisions, pure functions)."""
