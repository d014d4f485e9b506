"""Markdown as plain text, for the page's plain-text reading (key `r`); and cut into passages.

A screen reader reads `**位置**` as "star star 位置 star star", and a learner who copies a
passage does not want the markup either: emphasis, code and link markers go, the words
stay. Headings, list items and table rows keep lines of their own (items numbered or
bulleted, cells parted by " | "), so the structure is still there to hear and to paste.
"""

from __future__ import annotations

from markdown_it.token import Token

from tutor.content.markdown import markdown_parser
from tutor.content.prose import fact_keys


def inline_text(token: Token) -> str:
    """The words of an inline run: markers dropped, a link's address after its text."""
    out: list[str] = []
    links: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline", "image"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type == "link_open":
            links.append(str(child.attrs.get("href", "")))
        elif child.type == "link_close":
            href = links.pop() if links else ""
            if href and not href.startswith("#"):
                out.append(f" ({href})")
    return "".join(out)


def markdown_to_plain(source: str) -> str:
    """`source` without markup characters. Blocks are parted by a blank line; the items
    of a list and the rows of a table by a line break."""
    lines: list[str] = []  # output lines; "" parts blocks
    lists: list[list[int]] = []  # per open list: [next number], or [] for bullets
    prefix = ""  # what starts the next paragraph: a list item's bullet or number
    row: list[str] | None = None  # cells of the table row being read
    quote = 0

    def block_break() -> None:
        if lines and lines[-1] != "":
            lines.append("")

    for token in markdown_parser().parse(source):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            if not lists:
                block_break()
            start = token.attrs.get("start", 1) if kind == "ordered_list_open" else None
            lists.append([] if start is None else [int(start)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                block_break()
        elif kind == "list_item_open":
            indent = "  " * (len(lists) - 1)
            numbers = lists[-1]
            prefix = f"{indent}{numbers[0]}. " if numbers else f"{indent}• "
            if numbers:
                numbers[0] += 1
        elif kind == "blockquote_open":
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
        elif kind == "table_open":
            block_break()
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            lines.append(" | ".join(row))
            row = None
        elif kind == "inline" and row is not None:
            row.append(inline_text(token).strip())
        elif kind == "inline":
            if not lists:
                block_break()
            lead = "> " * quote + (prefix or "  " * len(lists))
            pad = "> " * quote + " " * (len(lead) - 2 * quote)
            first, *rest = inline_text(token).split("\n")
            lines += [lead + first, *(pad + line for line in rest)]
            prefix = ""
        elif kind in ("fence", "code_block"):
            block_break()
            lines += token.content.rstrip("\n").split("\n")
        elif kind == "hr":
            block_break()
            lines.append("—" * 8)
    return "\n".join(lines).strip("\n")


def markdown_passages(text: str) -> list[str]:
    """`text` cut after each top-level block (paragraph, list, table…) that quotes a fact,
    so that the fact's chips can sit right under the sentence they back."""
    lines = text.split("\n")
    cut_at = [
        token.map[1]
        for token in markdown_parser().parse(text)
        if token.level == 0 and token.map is not None and token.nesting >= 0
        if fact_keys("\n".join(lines[token.map[0] : token.map[1]]))
    ]
    starts, ends = [0, *cut_at], [*cut_at, len(lines)]
    chunks = [
        "\n".join(lines[start:end]).strip("\n") for start, end in zip(starts, ends, strict=True)
    ]
    return [chunk for chunk in chunks if chunk.strip()]
