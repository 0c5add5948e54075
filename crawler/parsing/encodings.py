"""Which encoding a page declares: the one place this is decided."""

from __future__ import annotations

from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom


def declared_encoding(body: bytes, content_type: str) -> str | None:
    """The encoding a page declares: BOM, the Content-Type's charset, or its ``<meta>`` /
    XML declaration; None when it declares none."""
    return (
        read_bom(body)[0]
        or http_content_type_encoding(content_type)
        or html_body_declared_encoding(body)
    )
