"""Grading free text: a typical answer, one at the limit, and a 100,000-character paste.

The grader reads at most MAX_CHARS characters, so a paste of any size costs what an answer
at the limit costs. Answers are real sentences of the lesson's kind, repeated to size, and
graded against the shipped summary rubric (six claims, five misconceptions). The first
grade of a process also loads jieba's dictionary; it is reported on its own, beside the
figures of the warm grader that follow in the same run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from _common import emit, machine, parse_args, summary_ms

from tutor.content import load_lessons
from tutor.content.grade import MAX_CHARS, SUMMARY, grade, rubric_for
from tutor.core.paths import content_dir

SENTENCES = (
    "token ID 只是一个索引，用来在表里取出对应的那一行向量。"
    "ID 越大的 token 并不更重要；训练不会改 ID，只改表里的数。"
    "用法相近的词最后挨在一起，查到的向量不看语境。"
    "An ID is just a row number, not a quantity; the vector does not depend on context. "
)


def answer_of(size: int) -> str:
    return (SENTENCES * (size // len(SENTENCES) + 1))[:size]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(__doc__, argv)
    lesson = load_lessons(content_dir()).lesson("embedding")
    assert lesson is not None
    rubric = rubric_for(lesson, SUMMARY)
    sizes = [300, 2_000] if args.quick else [300, 5_000, MAX_CHARS, 100_000]
    repeats = 2 if args.quick else 7

    started = time.perf_counter()
    grade(rubric, answer_of(300))
    first = time.perf_counter() - started

    figures = {}
    for size in sizes:
        text = answer_of(size)
        seconds = []
        for _ in range(repeats):
            started = time.perf_counter()
            result = grade(rubric, text)
            seconds.append(time.perf_counter() - started)
        figures[str(size)] = {
            **summary_ms(seconds),
            "truncated": result.truncated,
            "claims_met": len(result.met),
        }
    emit(
        {
            "benchmark": "grade",
            "quick": args.quick,
            "machine": machine(),
            "max_chars": MAX_CHARS,
            "first_grade_with_jieba_load_s": round(first, 3),
            "by_answer_chars": figures,
        }
    )


if __name__ == "__main__":
    main()
