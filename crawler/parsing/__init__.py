"""Reading pages: the item loader and its cleaning rules, compiled XPath, dates, a post body as
Markdown, declared encodings. Pure functions of text and markup, no crawl state."""
