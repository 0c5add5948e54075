"""For people adding sites and layouts: saved-page cases, the bundled sample sites and their
server, the ``genspider`` templates (``scrapy detect``'s reading is the crawl's own:
:mod:`crawler.discovery.detect`)."""
