"""What the running crawl knows of each site, shared by every component of the crawler."""
