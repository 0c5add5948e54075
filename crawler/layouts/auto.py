"""The ``auto`` layout: a site registered without a layout, read by whatever its start page
calls for."""

from __future__ import annotations

from crawler.layouts.base import Layout


class AutoLayout(Layout):
    """Stands for the layout the site's start page calls for until the crawl has read it:
    the spider resolves it there (:func:`crawler.discovery.detect.resolve_layout`: a known
    layout whose signature matches and which reads posts off the page, else the generic
    reader), and the store remembers the answer for the runs whose start page is unchanged
    (a 304 has no page to look at). None of its hooks is ever called."""

    name = "auto"
