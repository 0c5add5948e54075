"""The blog spiders (``scrapy crawl LAYOUT``): one per layout, made in :mod:`.blogs`."""
