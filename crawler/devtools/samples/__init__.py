"""Bundled sample sites, one per layout, served on 127.0.0.1 for the offline demo and tests."""
