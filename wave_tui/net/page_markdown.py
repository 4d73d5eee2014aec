"""HTML to Markdown as a reader sees the page (markdownify, loaded only when a page is fetched)."""

from __future__ import annotations

from markdownify import MarkdownConverter


class PageConverter(MarkdownConverter):
    """Markdown of what a reader sees: scripts and styles dropped with their content."""

    def _drop(self, *args: object, **kwargs: object) -> str:
        return ""

    convert_script = convert_style = convert_noscript = convert_template = _drop

    def convert_title(self, *args: object, **kwargs: object) -> str:
        text = args[1] if len(args) > 1 else kwargs.get("text", "")
        return f"{str(text).strip()}\n\n"
