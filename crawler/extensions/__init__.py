"""Scrapy extensions: the run summary, the outputs at the end of ``scrapy crawl``, fewer
garbage-collector passes."""
