"""Reading any blog from its home page: which layout reads it (or the generic reader), where
its posts are (feeds, sitemaps, the site's own links) and whether a page is a post. Pure
functions of pages and URLs, as the layouts are."""
