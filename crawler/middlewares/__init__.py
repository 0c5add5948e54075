"""Downloader middlewares: Retry-After, encoding fallback."""
