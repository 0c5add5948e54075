"""For people adding sites and layouts: ``scrapy detect``'s reading, saved-page cases, the
bundled sample sites and their server, the ``genspider`` templates."""
