"""Chinese word segmentation with jieba, the field's common segmenter: the one place the
tutor loads it.

Two dictionaries, because two readers need different things from jieba:

- the whole dictionary (349,000 words), for the word scheme: the build's vocabulary, the
  app's word tokenizer and the corpus measures. Its cuts are the assets' words, so this
  path must segment exactly as the build always has.
- the words holding some given characters (`keep_chars`), for the answer grader, which
  only looks for negation cues (不, 没, 别 …): its ~18,500 cue words load in 0.2–0.3 s
  and +6 MB, the whole dictionary in 1–1.5 s (from jieba's cache) and +63 MB. The
  negation words it finds differ in 8 of the 121 Chinese labelled answers (不知/道 where
  the whole dictionary cuts 不/知道), and the grader's phrases were tuned on its cuts.

The restricted dictionary is built in memory from jieba's own word list every time, so it
is the same wherever the tutor runs, with or without a writable cache folder (it never
falls back to the whole dictionary). jieba is imported on first use only: the learner pays
for it when Chinese is segmented, never at start-up. It logs to stderr, where the TUI
draws, so only its errors are let through; its cache of the whole dictionary goes to the
tutor's cache folder (the system temp folder if that cannot be made).
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

_LOCK = threading.Lock()  # two graders at once (a quiz and a summary) load jieba once


def segmenter(keep_chars: frozenset[str] | None = None) -> Any:
    """jieba's tokenizer on its whole dictionary, or only on the words holding one of
    `keep_chars`; one per argument, loaded once."""
    with _LOCK:
        return _load(keep_chars)


@cache
def _load(keep_chars: frozenset[str] | None) -> Any:
    import io
    import logging
    import re
    import tempfile
    from pathlib import Path

    import jieba

    from tutor.core.paths import default_cache_dir

    jieba.setLogLevel(logging.ERROR)
    tokenizer = jieba.Tokenizer()
    if keep_chars is None:
        folder = default_cache_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            folder = Path(tempfile.gettempdir())
        tokenizer.tmp_dir = str(folder)
        tokenizer.initialize()
        return tokenizer
    # What initialize() does from a dictionary file (Tokenizer.gen_pfdict, public), fed
    # the kept lines from memory: nothing written, nothing read back. A pattern finds them
    # in the file's bytes, neither decoded nor split into 349,000 strings (+6 MB, not +30).
    source = Path(jieba.__file__).with_name("dict.txt").read_bytes()
    chars = b"|".join(re.escape(char.encode("utf-8")) for char in sorted(keep_chars))
    kept = re.findall(b"^[^ \\n]*(?:" + chars + b")[^\\n]*", source, flags=re.MULTILINE)
    words_file = io.BytesIO(b"\n".join(kept) + b"\n")
    tokenizer.FREQ, tokenizer.total = jieba.Tokenizer.gen_pfdict(words_file)
    tokenizer.initialized = True
    return tokenizer


def words(line: str) -> list[str]:
    """jieba's words of one line, whitespace dropped (HMM on, so unseen names are found)."""
    return [w for w in segmenter().cut(line, HMM=True) if not w.isspace()]


def spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every word of `text`, whitespace dropped."""
    return [(w, a, b) for w, a, b in segmenter().tokenize(text, HMM=True) if not w.isspace()]
