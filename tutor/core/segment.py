"""Chinese word segmentation with jieba, the field's common segmenter.

jieba's dictionary takes a second or two to load, so it is imported on first use only:
the learner pays for it when the word scheme is asked for, never at start-up.
"""

from __future__ import annotations

from functools import cache


@cache
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def words(line: str) -> list[str]:
    """jieba's words of one line, whitespace dropped (HMM on, so unseen names are found)."""
    return [w for w in _jieba().cut(line, HMM=True) if not w.isspace()]


def spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every word of `text`, whitespace dropped."""
    return [(w, a, b) for w, a, b in _jieba().tokenize(text, HMM=True) if not w.isspace()]
