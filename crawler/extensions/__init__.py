"""Scrapy extensions: exports at the end of a run, the run summary."""
