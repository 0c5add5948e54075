"""``crawlall --scrapyd URL …``: a run's sites split over Scrapyd nodes sharing one store.

The controller (:class:`ScrapydRun`) assigns each site to a node by rendezvous hashing on the
site's network location (host and port): every blog of one host goes to the same node, so
Scrapy's per-host politeness holds across the cluster, and a site stays on its node while the
node set is unchanged. It schedules one job per node (crawlall's spider with that node's sites,
one crawler per job as on one machine) through Scrapyd's JSON API, waits for the jobs, and
reads each site's outcome from the shared store (the nodes record it as each site closes). A
node that is down, refuses its job, or dies during it: its sites without an outcome go to the
other nodes. The project must be deployed to every node as ``blogcrawler``
(``scrapyd-deploy``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.error import URLError
from urllib.parse import unquote, urlencode, urlsplit
from urllib.request import Request, urlopen

from crawler.sites import SiteConfig
from crawler.spiders.registry import RegistrySpider, sites_argument
from crawler.store.base import RunRecords

logger = logging.getLogger(__name__)

PROJECT = "blogcrawler"


class NodeError(RuntimeError):
    """A Scrapyd node did not answer, or answered with an error (the message says which)."""


def _netloc(site: SiteConfig) -> str:
    return urlsplit(site.url).netloc.lower()


def rendezvous(key: str, nodes: Sequence[str]) -> str:
    """The node with the highest hash of (node, key): the same node for a key as long as the
    node set holds it; a node leaving moves only its own keys."""
    return max(nodes, key=lambda node: hashlib.sha256(f"{node}\n{key}".encode()).digest())


def assign(sites: Iterable[SiteConfig], nodes: Sequence[str]) -> dict[str, list[SiteConfig]]:
    """The sites of each node, by rendezvous hashing on each site's host and port."""
    plan: dict[str, list[SiteConfig]] = {node: [] for node in nodes}
    for site in sites:
        plan[rendezvous(_netloc(site), nodes)].append(site)
    return {node: found for node, found in plan.items() if found}


@dataclass
class ScrapydNode:
    """One Scrapyd server's JSON API."""

    url: str
    timeout: float = 10.0

    def call(self, endpoint: str, data: dict[str, str | list[str]] | None = None) -> dict:
        """``GET``/``POST`` an endpoint; its JSON answer, or :class:`NodeError`. A user and
        password in the node's URL (``http://user:secret@host:6800``) go as basic auth."""
        parts = urlsplit(self.url)
        headers = {}
        if parts.username:
            secret = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            headers["Authorization"] = "Basic " + base64.b64encode(secret.encode()).decode()
        base = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl().rstrip("/")
        target = f"{base}/{endpoint}"
        body = urlencode(data, doseq=True).encode() if data is not None else None
        try:
            request = Request(target, data=body, headers=headers)
            with urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
        except (URLError, OSError, ValueError) as exc:
            raise NodeError(f"{self.url}: {getattr(exc, 'reason', exc)}") from exc
        if answer.get("status") != "ok":
            raise NodeError(f"{self.url}: {endpoint}: {answer.get('message', answer)}")
        return answer

    def check(self) -> None:
        """The node answers and has the project deployed; :class:`NodeError` saying why not."""
        self.call("daemonstatus.json")
        projects = self.call("listprojects.json").get("projects", [])
        if PROJECT not in projects:
            raise NodeError(
                f"{self.url}: project {PROJECT!r} is not deployed there (deploy it with"
                f" `scrapyd-deploy` to this node; it has: {', '.join(projects) or 'none'})"
            )

    def schedule(
        self, sites: Sequence[SiteConfig], settings: dict[str, str], arguments: dict[str, str]
    ) -> str:
        """Schedule one crawlall job for ``sites``; its job id."""
        data: dict[str, str | list[str]] = {
            "project": PROJECT,
            "spider": RegistrySpider.name,
            "sites": sites_argument(sites),
            "setting": [f"{name}={value}" for name, value in settings.items()],
            **arguments,
        }
        return str(self.call("schedule.json", data)["jobid"])

    def state(self, job: str) -> str:
        """``pending``, ``running`` or ``finished``: a job of this node."""
        jobs = self.call(f"listjobs.json?{urlencode({'project': PROJECT})}")
        for state in ("pending", "running", "finished"):
            if any(entry.get("id") == job for entry in jobs.get(state, [])):
                return state
        return "finished"  # forgotten (the node restarted): over, whatever it did


@dataclass
class Job:
    """A job of the run: its node, its sites, its Scrapyd id."""

    node: ScrapydNode
    sites: list[SiteConfig]
    id: str
    state: str = "pending"


@dataclass
class ScrapydRun:
    """One controller run over Scrapyd nodes; see the module docstring.

    ``settings``: Scrapy settings every job gets (the store's URL, the run id); ``arguments``:
    spider arguments (``full``, ``content``); ``outcomes(run)``: the outcomes recorded so far.
    """

    nodes: list[ScrapydNode]
    store: RunRecords
    run_id: str
    settings: dict[str, str]
    arguments: dict[str, str]
    poll_interval: float = 1.0
    notes: list[str] = field(default_factory=list)  # what the summary should say of the nodes
    say: Callable[[str], None] = print
    tries: Counter[str] = field(default_factory=Counter)  # jobs each site was given to

    def live_nodes(self, nodes: Iterable[ScrapydNode]) -> list[ScrapydNode]:
        """The nodes that answer and have the project, each other one noted."""
        live = []
        for node in nodes:
            try:
                node.check()
            except NodeError as exc:
                self.note(f"node {node.url} left out: {exc}")
                continue
            live.append(node)
        return live

    def note(self, text: str) -> None:
        self.notes.append(text)
        logger.warning("%s", text)

    def start_jobs(self, sites: Sequence[SiteConfig], nodes: list[ScrapydNode]) -> list[Job]:
        """Schedule ``sites`` over ``nodes``; a node refusing its job is dropped from
        ``nodes`` and its sites go to the others."""
        jobs: list[Job] = []
        # A site whose job ended without its outcome on as many nodes as the run has is
        # not given out again (its crawl itself breaks the job).
        pending = [site for site in sites if self.tries[site.name] < len(self.nodes)]
        for site in sites:
            if site not in pending:
                self.note(
                    f"site {site.name} not crawled: its job ended without an outcome"
                    f" {self.tries[site.name]} time(s)"
                )
        while pending and nodes:
            by_url = {node.url: node for node in nodes}
            plan = assign(pending, list(by_url))
            pending = []
            for url, assigned in plan.items():
                node = by_url[url]
                try:
                    job = node.schedule(assigned, self.settings, self.arguments)
                except NodeError as exc:
                    self.note(f"node {url} refused its job ({exc}); its sites go to the others")
                    nodes.remove(node)
                    pending += assigned
                    continue
                jobs.append(Job(node, assigned, job))
                self.tries.update(site.name for site in assigned)
                names = ", ".join(site.name for site in assigned)
                self.say(f"scheduled {len(assigned)} site(s) on {url} (job {job}): {names}")
        for site in pending:
            self.note(f"site {site.name} not crawled: no node left to take it")
        return jobs

    def crawl(self, sites: Sequence[SiteConfig]) -> dict[str, dict]:
        """Crawl ``sites`` over the live nodes; the outcome of each site, by name."""
        nodes = self.live_nodes(self.nodes)
        jobs = self.start_jobs(sites, nodes)
        shown = ""
        while jobs:
            time.sleep(self.poll_interval)
            for job in jobs:
                try:
                    job.state = job.node.state(job.id)
                except NodeError as exc:
                    job.state = "lost"
                    if job.node in nodes:
                        nodes.remove(job.node)
                        self.note(f"node {job.node.url} stopped answering during the run ({exc})")
            # Read after the states: a job seen finished has recorded its sites' outcomes.
            done = dict(self.store.site_runs(self.run_id))
            still = [job for job in jobs if job.state in ("pending", "running")]
            for job in jobs:
                missing = [site for site in job.sites if site.name not in done]
                if job in still or not missing:
                    continue
                self.note(
                    f"{len(missing)} site(s) of node {job.node.url} ended without an outcome"
                    f" ({', '.join(site.name for site in missing)}): given to another node"
                )
                others = [node for node in nodes if node is not job.node] or nodes
                still += self.start_jobs(missing, others)
            running = sum(job.state == "running" for job in still)
            progress = f"{len(done)} of {len(sites)} site(s) done; {len(still)} job(s) left"
            if f"{progress}{running}" != shown:
                self.say(f"{progress}, {running} running")
                shown = f"{progress}{running}"
            jobs = still
        return dict(self.store.site_runs(self.run_id))
