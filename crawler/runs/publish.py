"""What a run leaves behind when it ends: the dataset and its changes, the Atom feeds, the
report page, and the run folders pruned to ``RUNS_KEEP``; in that order, from the store."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from scrapy.settings import BaseSettings

from crawler.extensions.memory import trim_heap
from crawler.outputs.dataset import DatasetResult, write_dataset
from crawler.outputs.files import ExportError
from crawler.outputs.report import write_report
from crawler.runs.folders import output_dir, prune_runs, run_dir
from crawler.store.base import PostStore, StoreUnavailable

logger = logging.getLogger(__name__)


def check_output_settings(settings: BaseSettings) -> None:
    """Refuse settings the outputs cannot use before a run starts (``ValueError`` naming
    the setting), rather than after its crawl."""
    from crawler.outputs.atom import entry_counts  # feedgen: loaded by runs that write feeds

    entry_counts(settings)


def publish_outputs(
    settings: BaseSettings,
    store: PostStore,
    run: str,
    site_urls: Mapping[str, str] | None = None,
) -> DatasetResult | None:
    """Write the run's outputs (``site_urls``: each site's address, for its feed's id and
    link). A file that cannot be written is one ERROR line (the traceback at DEBUG) and
    None: the caller's exit status says the run failed; the files that were there stay."""
    from crawler.outputs.atom import feeds_written, write_feeds  # feedgen, markdown-it: here

    out = output_dir(settings)
    try:
        store.flush()
        result = write_dataset(settings, store, out, run, run_dir(settings, run))
        store.flush()
        trim_heap()  # each step's peak on top of what the crawl holds, not of the last's
        # The feeds come from what the dataset holds: when it was current (nothing recorded
        # since it was written, the same settings), so are they.
        if result.rewritten or not feeds_written(out):
            write_feeds(settings, store, out, site_urls)  # rewrites only the feeds that changed
            trim_heap()
        # Every run, quiet ones too: the page shows how the runs went.
        write_report(
            out,
            store,
            run,
            newest=settings.getint("REPORT_NEWEST"),
            trending_days=settings.getint("REPORT_TRENDING_DAYS"),
            listing=result.listing,
        )
    except (ExportError, StoreUnavailable) as exc:
        logger.error("%s; the files that were there before are kept", exc)
        logger.debug("the export failed", exc_info=True)
        return None
    prune_runs(settings, run)
    return result
