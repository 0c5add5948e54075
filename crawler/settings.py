"""Scrapy settings of the blog crawler; each can be overridden with ``-s NAME=VALUE``."""

from pathlib import Path

from crawler.items import POST_FIELDS
from crawler.outputs.exporters import DEFAULT_LIST_SEPARATOR

BOT_NAME = "blogcrawler"
SPIDER_MODULES = ["crawler.spiders"]
# `scrapy genspider -t layout NAME DOMAIN` writes a new layout: every layout gets its spider.
NEWSPIDER_MODULE = "crawler.layouts"
COMMANDS_MODULE = "crawler.commands"
# The site registry (TOML) of crawlall, -a site=NAME and -a url= matching; empty: the packaged
# crawler/sites.toml.
SITE_REGISTRY = ""

# Politeness towards real blogs, per host across all sites of a run (one crawler serves them
# all); sites on 127.0.0.1 skip the delays unless THROTTLE_LOOPBACK (see BlogSpider).
THROTTLE_LOOPBACK = False
USER_AGENT = "blogcrawler/0.1 (+https://github.com/blogcrawler; polite reader of public post lists)"
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 0.5
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
DOWNLOAD_TIMEOUT = 30
# Blog list pages and feeds are well under 1 MB; a bigger page is a trap or an error.
DOWNLOAD_MAXSIZE = 8 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
# Scrapy runs a response's items through the pipelines in this many tasks at once (default
# 100, each a task made per response); ours are synchronous, and a list page holds ~10 posts.
CONCURRENT_ITEMS = 16
# Scrapy reads the source of every callback once to warn about `return` in generators; ours
# are checked by ruff and the tests, and that reading costs start-up time on every run.
WARN_ON_GENERATOR_RETURN_VALUE = False
RETRY_TIMES = 3
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]

DOWNLOADER_MIDDLEWARES = {
    # Response order is from high to low: Retry-After before Scrapy's retry (550), encoding
    # after decompression (590).
    "crawler.middlewares.retry_after.RetryAfterMiddleware": 560,
    "crawler.middlewares.encoding.ChineseEncodingMiddleware": 580,
    # robots.txt obeyed as Scrapy does; one line per host when it cannot be fetched.
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "crawler.middlewares.robots.QuietRobotsTxtMiddleware": 100,
}
RETRY_AFTER_MAX = 120  # seconds; a longer Retry-After fails the request instead
# Incremental crawling (crawler/incremental/) sits next to the spider: it sees the spider's
# own output before Scrapy's depth and URL-length middlewares.
SPIDER_MIDDLEWARES = {
    "crawler.incremental.middleware.IncrementalMiddleware": 950,
}
# The cross-run store (crawler/store/): off, nothing is remembered between runs (every page
# read, no dataset files written).
POST_STORE_ENABLED = True
# A PostgreSQL database (postgresql://user@host:port/db) shared by several machines; empty:
# the SQLite file POST_STORE_PATH.
POST_STORE_URL = ""
POST_STORE_PATH = ""  # empty: <OUTPUT_DIR>/posts.sqlite
# A lost PostgreSQL connection (a server restart) is made again for this long, in seconds,
# before the run stops on it.
POST_STORE_RECONNECT_SECONDS = 30.0

ITEM_PIPELINES = {
    "crawler.pipelines.validate.ValidatePipeline": 100,
    "crawler.pipelines.dates.DatesPipeline": 200,
    "crawler.pipelines.dedupe.DedupePipeline": 300,
    "crawler.pipelines.store.StorePipeline": 400,
}
EXTENSIONS = {
    "crawler.extensions.outputs.OutputsExtension": 500,
    "crawler.extensions.summary.RunSummaryExtension": 510,
    "crawler.extensions.memory.GcTuningExtension": 520,
    "crawler.extensions.memory.HeapTrimExtension": 530,
}
# Health checks after each run (see crawler/runs/summary.py): a site beyond them is "unhealthy".
HEALTH_MAX_DATE_FAILURE_RATIO = 0.2
HEALTH_MIN_TITLE_COVERAGE = 0.9
HEALTH_MIN_DATE_COVERAGE = 0.8
# More post pages than this share not read (failed, or no body found): "unhealthy".
HEALTH_MAX_POST_FAILURE_RATIO = 0.5

# Where the outputs and the SQLite store live.
OUTPUT_DIR = "output"
# The run's outputs (dataset, changes, feeds, report) at the end of `scrapy crawl`; crawlall
# and a Scrapyd node's job set OUTPUTS_DEFERRED and SUMMARY_DEFERRED: the command writes one
# set for all its sites.
OUTPUTS_ENABLED = True
OUTPUTS_DEFERRED = False
SUMMARY_DEFERRED = False
# The run's id (output/runs/<id>/); empty: made from the time and pid. A controller gives
# its nodes its own.
RUN_ID = ""
# Run folders (output/runs/<run id>/) kept: the newest N, older ones deleted after each run's
# exports are written; 0 keeps them all.
RUNS_KEEP = 30
# Atom feeds (OUTPUT_DIR/feeds/<site>.xml and all.xml, rewritten when they change): entries in
# each site's feed and in all.xml, newest first.
FEEDS_SITE_ENTRIES = 50
FEEDS_ALL_ENTRIES = 200
# report.html (rewritten after every run): the newest posts it lists, the trending window.
REPORT_NEWEST = 300
REPORT_TRENDING_DAYS = 7
# CSV: BOM for Excel (off: data tools read plain UTF-8), separator for list fields (tags).
CSV_BOM = False
CSV_LIST_SEPARATOR = DEFAULT_LIST_SEPARATOR

# Exports: same columns in the same order for JSON Lines and CSV, whatever the first item holds.
FEED_EXPORT_ENCODING = "utf-8"
FEED_EXPORT_FIELDS = list(POST_FIELDS)
FEED_EXPORTERS = {
    "csv": "crawler.outputs.exporters.SafeCsvItemExporter",
    "jsonlines": "crawler.outputs.exporters.JsonLinesExporter",
    "jsonl": "crawler.outputs.exporters.JsonLinesExporter",
}

LOG_LEVEL = "INFO"
# A healthy run's log at INFO is its own lines (a line per site, the summary table); Scrapy's
# own INFO lines (versions, enabled components, the stats dump) come back with
# LOG_SCRAPY_INFO = True or LOG_LEVEL = "DEBUG". The stats are in each run's summary.json.
LOG_SCRAPY_INFO = False
STATS_DUMP = False
LOG_VERSIONS: list[str] = []  # Scrapy's list of library versions logged at start: none
TELNETCONSOLE_ENABLED = False
# Scrapy's remote-control HTTP server (a port per crawler): nothing here uses it.
REMOTE_CONTROL_ENABLED = False
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
SAMPLE_PORT_BASE = 18401  # crawlall --sample serves its four sites on this port and the next three
# GcTuningExtension: young-generation threshold during a crawl.
GC_TUNING_ENABLED = True
GC_GEN0_THRESHOLD = 20_000
# HeapTrimExtension: garbage collected and freed C heap handed back every this many bytes of
# page bodies received (0: never).
HEAP_TRIM_BYTES = 8 * 1024 * 1024

# `scrapy genspider -t layout NAME DOMAIN`. This folder replaces Scrapy's own templates folder,
# so it also holds copies of basic/crawl/csvfeed/xmlfeed (tests/scenarios/test_genspider.py
# checks them).
TEMPLATES_DIR = str(Path(__file__).resolve().parent / "devtools" / "templates")
