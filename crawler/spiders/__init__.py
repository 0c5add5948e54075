"""One spider per blog layout; each is a small subclass of :class:`LayoutSpider`."""
