"""Shim for ``scrapyd-deploy``, which builds the Scrapyd egg with ``python setup.py bdist_egg``.

Everything (packages, data files, the ``scrapy`` entry point naming ``crawler.settings``) is
declared in ``pyproject.toml``; without this file ``scrapyd-deploy`` would write its own
``setup.py`` that ignores that configuration.
"""

from setuptools import setup

setup()
