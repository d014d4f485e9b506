"""Chinese word segmentation with jieba, the field's common segmenter: the one place the
tutor loads it.

Two dictionaries, because two readers need different things from jieba:

- the whole dictionary (349,000 words), for the word scheme: the build's vocabulary, the
  app's word tokenizer and the corpus measures. Its cuts are the assets' words, so this
  path must segment exactly as the build always has.
- the words holding some given characters (`keep_chars`), for the answer grader, which
  only looks for negation cues (不, 没, 别 …): its ~18,500 cue words load in 0.1–0.3 s
  and +8 MB, the whole dictionary in 1–1.5 s and +63 MB (each from its cache). The
  negation words it finds differ in 8 of the 121 Chinese labelled answers (不知/道 where
  the whole dictionary cuts 不/知道), and the grader's phrases were tuned on its cuts.

Both are cached in the tutor's cache folder (the system temp folder if that cannot be
made). Where nothing can be written the cue words are built in memory each time: the same
words, so a grade never depends on which folders are writable (the grader never falls back
to the whole dictionary). jieba is imported on first use only: the learner pays for it
when Chinese is segmented, never at start-up. It logs to stderr, where the TUI draws, so
only its errors are let through.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()  # two graders at once (a quiz and a summary) load jieba once


def segmenter(keep_chars: frozenset[str] | None = None) -> Any:
    """jieba's tokenizer on its whole dictionary, or only on the words holding one of
    `keep_chars`; one per argument, loaded once."""
    with _LOCK:
        return _load(keep_chars)


@cache
def _load(keep_chars: frozenset[str] | None) -> Any:
    import logging

    import jieba

    jieba.setLogLevel(logging.ERROR)
    tokenizer = jieba.Tokenizer()
    if keep_chars is None:
        tokenizer.tmp_dir = str(_cache_folder())
        tokenizer.initialize()
    else:
        tokenizer.FREQ, tokenizer.total = _kept_words(keep_chars, _cache_folder())
        tokenizer.initialized = True  # what initialize() sets once FREQ and total are in
    return tokenizer


def _cache_folder() -> Path:
    """The tutor's cache folder, or the system temp folder if that cannot be made."""
    import tempfile

    from tutor.core.paths import default_cache_dir

    folder = default_cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return Path(tempfile.gettempdir())
    return folder


def _kept_words(keep_chars: frozenset[str], folder: Path) -> tuple[dict[str, int], int]:
    """jieba's prefix dictionary and total count over the words holding one of
    `keep_chars`: read from `folder` if cached there, else built in memory and cached
    (atomically: two sessions may build it at once) when the folder can be written."""
    import io
    import marshal
    import os
    import re
    import zlib

    import jieba

    chars = "".join(sorted(keep_chars))
    cached = folder / f"jieba-{jieba.__version__}-{zlib.crc32(chars.encode()):08x}.marshal"
    try:
        with cached.open("rb") as file:
            return marshal.load(file)  # type: ignore[no-any-return]
    except (OSError, EOFError, ValueError, TypeError):
        pass
    # What initialize() does from a dictionary file (Tokenizer.gen_pfdict, public), fed
    # the kept lines from memory.
    source = Path(jieba.__file__).with_name("dict.txt").read_text(encoding="utf-8")
    kept = re.findall(f"^[^ \\n]*[{re.escape(chars)}][^\\n]*", source, flags=re.MULTILINE)
    built = jieba.Tokenizer.gen_pfdict(io.BytesIO(("\n".join(kept) + "\n").encode("utf-8")))
    partial = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
    try:
        partial.write_bytes(marshal.dumps(built))
        os.replace(partial, cached)
    except OSError:
        pass  # nowhere to write: built again next time, the same words
    return built  # type: ignore[no-any-return]


def words(line: str) -> list[str]:
    """jieba's words of one line, whitespace dropped (HMM on, so unseen names are found)."""
    return [w for w in segmenter().cut(line, HMM=True) if not w.isspace()]


def spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every word of `text`, whitespace dropped."""
    return [(w, a, b) for w, a, b in segmenter().tokenize(text, HMM=True) if not w.isspace()]
