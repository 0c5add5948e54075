"""Project commands: ``crawl`` (with argument checks and an honest exit status) and others."""
