"""Grading a learner's free text against a lesson's rubric: on what it asserts, not on words.

A keyword matcher praises `ID 不是行号` for mentioning 行号. Here a claim counts only in a
clause that asserts it:

- the clause holds one of the claim's phrases (`a|b + c|d`: synonym sets, all in one
  clause, each by a different word), in Chinese or English;
- no word of that phrase sits in the scope of a negation (不, 没, 不是, 不等于, not,
  doesn't …: from the negation to the end of the clause or to a turn such as 而是 / but),
  nor of a denial (…是错的, 不对, 我以为…, I used to think, that's wrong: its clause up to
  a turn; a colon after a verdict ends the clause, so `that's wrong: an ID is a row` says
  the row);
- the clause is not a question (it ends in ？/? or 吗): a question asserts nothing;
- the next clause is not a bare denial of it (`ID 越大越重要？不对。`);
- no misconception is stated or quoted in the same clause (`查表得到的向量会随上下文变化`
  earns no lookup claim), and none that contradicts the claim is asserted anywhere in the
  answer: a misconception statement is never credited with a claim.

A phrase names every part that makes its claim (`id + 是|只是 + 行号|索引`), so a lone
keyword (`查表。`) or a bare noun phrase (`意思和向量`) asserts nothing either.

A claim both asserted and negated in one answer is undecided (neither met nor denied): the
learner's self-check and the teacher decide it. Every verdict quotes its clause.

Misconceptions are found the same way; one written inside quotes (「…」) or reported (有人说,
people say) is mentioned, not asserted, and withdraws no claim; one only in a condition
(如果…, if…) is undecided. A misconception phrase of three parts or more may also run over
two clauses of one sentence (`ID 相近，说明意思相近`), unless the second turns against the
first (but, 但). A summary is read by its sections (`summary_sections`): a misconception
named under the corrected ones is fixed, and the open questions assert nothing.

Chinese words are segmented with jieba (its cue words only, loaded on first need) so that
不同, 不断, 不仅 are not taken for negations. Answers are graded up to MAX_CHARS characters.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from tutor.cjk import has_cjk
from tutor.content.models import (
    Misconception,
    QuizFront,
    RubricClaim,
    Summary,
    SummarySection,
    phrase_sets,
)
from tutor.core.refusal import Coded
from tutor.core.segment import segmenter

if TYPE_CHECKING:
    from tutor.content.models import Lesson

MAX_CHARS = 10_000  # a summary is a few paragraphs; the reference is ~700
SUMMARY = "summary"


# the rubric and the grade ------------------------------------------------------------------


class Rubric(BaseModel):
    """What one free-text item is graded against: claims to make, misconceptions to avoid."""

    model_config = ConfigDict(frozen=True)

    lesson: str
    item: str
    claims: list[RubricClaim]
    misconceptions: list[Misconception]
    sections: list[SummarySection] = []
    """The summary's sections: an answer with their headings is read section by section."""

    def claim(self, claim_id: str) -> RubricClaim:
        return next(claim for claim in self.claims if claim.id == claim_id)

    def misconception(self, misconception_id: str) -> Misconception:
        return next(m for m in self.misconceptions if m.id == misconception_id)


ClaimStatus = Literal["met", "not_found", "denied", "withdrawn", "undecided"]
MisconceptionStatus = Literal["held", "fixed", "rejected", "undecided", "absent"]


class ClaimVerdict(BaseModel):
    id: str
    met: bool
    evidence: str = ""
    """The clause that asserts the claim; when not met, the clause that denied it, if any."""
    denied: bool = False
    """Mentioned, but negated or contradicted by a misconception (see `evidence`)."""
    contradicted_by: str = ""
    """The misconception, stated in the answer, that withdrew this claim."""
    status: ClaimStatus = "not_found"
    """`undecided`: the answer both asserts and negates it; the grader leaves it to the
    learner's self-check and the teacher."""


class MisconceptionVerdict(BaseModel):
    id: str
    matched: bool
    """Held: stated as the learner's own idea (`status == "held"`)."""
    evidence: str = ""
    status: MisconceptionStatus = "absent"
    """`fixed`: named in the summary's section of corrected misconceptions (credit);
    `rejected`: quoted, retracted, negated or asked about; `undecided`: only in a
    hypothesis (如果…, if…), which may or may not be the learner's own idea."""


class Grade(BaseModel):
    """The verdict on one answer; `model_dump()` is what `tutor grade --json` prints."""

    claims: list[ClaimVerdict]
    misconceptions: list[MisconceptionVerdict]
    truncated: bool = False
    questions: str = ""
    """A summary's open questions, as written: graded for nothing, shown to the teacher."""

    @property
    def met(self) -> list[ClaimVerdict]:
        return [claim for claim in self.claims if claim.met]

    @property
    def matched(self) -> list[MisconceptionVerdict]:
        return [m for m in self.misconceptions if m.matched]

    @property
    def fixed(self) -> list[MisconceptionVerdict]:
        return [m for m in self.misconceptions if m.status == "fixed"]

    @property
    def complete(self) -> bool:
        """Every claim made and no misconception asserted."""
        return len(self.met) == len(self.claims) and not self.matched


class UnknownItem(Coded, LookupError):
    """An item that is neither a text question of the lesson nor its summary."""


def gradable_items(lesson: Lesson) -> list[str]:
    """The ids `rubric_for` accepts: every text question, then `summary` if there is one."""
    items = [
        question.id
        for page in lesson.pages
        if isinstance(page.front, QuizFront)
        for question in page.front.questions
        if question.type == "text"
    ]
    return items + ([SUMMARY] if _summary(lesson) is not None else [])


def rubric_for(lesson: Lesson, item_id: str) -> Rubric:
    """The rubric of a text question (its claims, the lesson's misconceptions) or of the
    summary (all claims). Raises UnknownItem naming the items there are."""
    summary = _summary(lesson)
    misconceptions = summary.misconceptions if summary is not None else []
    if item_id == SUMMARY and summary is not None:
        return summary_rubric(lesson.id, summary)
    for page in lesson.pages:
        for question in getattr(page.front, "questions", []):
            if question.id == item_id and question.type == "text":
                known = {claim.id: claim for claim in summary.rubric} if summary else {}
                claims = [known[c] for c in question.rubric if c in known]
                return Rubric(
                    lesson=lesson.id, item=item_id, claims=claims, misconceptions=misconceptions
                )
    items = ", ".join(gradable_items(lesson)) or "-"
    raise UnknownItem(
        f"{item_id!r} is not a text question or the summary of lesson {lesson.id!r} "
        f"(gradable items: {items})",
        "unknown_item",
        item=item_id,
        lesson=lesson.id,
        items=items,
    )


def summary_rubric(lesson_id: str, summary: Summary) -> Rubric:
    """The summary form's rubric: all its claims and misconceptions, and its sections."""
    return Rubric(
        lesson=lesson_id,
        item=SUMMARY,
        claims=summary.rubric,
        misconceptions=summary.misconceptions,
        sections=summary.sections,
    )


def summary_answer(summary: Summary, texts: dict[str, str]) -> str:
    """A learner's summary as one answer to grade: each written section under its heading,
    so that `grade` reads 纠正了的误解 as fixed and 还没解决的问题 as questions."""
    return "\n".join(
        f"## {section.title_zh}\n{texts[section.id]}"
        for section in summary.sections
        if texts.get(section.id, "").strip()
    )


_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]*(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def summary_sections(sections: list[SummarySection], text: str) -> dict[str, str]:
    """The text under each section's markdown heading (`## 我的理解` or `## My
    Understanding`); text before the first known heading, or a text without headings,
    belongs to the first section. Another heading is part of the text it sits in."""
    titles = {
        title.casefold().rstrip(":：").strip(): section.id
        for section in sections
        for title in (section.title_zh, section.title_en)
    }
    found: dict[str, list[str]] = {}
    current, start = sections[0].id, 0
    for match in _HEADING.finditer(text):
        section = titles.get(match.group(1).casefold().rstrip(":：").strip())
        if section is None:
            continue
        found.setdefault(current, []).append(text[start : match.start()])
        current, start = section, match.end()
    found.setdefault(current, []).append(text[start:])
    return {key: "\n".join(part.strip("\n") for part in parts) for key, parts in found.items()}


def _summary(lesson: Lesson) -> Summary | None:
    return next(
        (page.front.summary for page in lesson.pages if getattr(page.front, "summary", None)),
        None,
    )


def grade(rubric: Rubric, text: str) -> Grade:
    """Which claims `text` asserts and which misconceptions it states (module docstring).

    A summary's answer is read by its sections (`summary_sections`): a misconception under
    the section of corrected ones is fixed, not held, and withdraws no claim; the section
    of open questions asserts nothing."""
    truncated = len(text) > MAX_CHARS
    text = text[:MAX_CHARS]
    says, fixes, questions = [text], [], ""
    if rubric.sections:
        by_section = summary_sections(rubric.sections, text)
        says, fixes = [], []
        for section in rubric.sections:
            written = by_section.get(section.id, "")
            if section.lists_questions:
                questions = written
            else:
                (fixes if section.lists_misconceptions else says).append(written)
    parts = [_Part(_Answer(written), fixing=False) for written in says if written.strip()]
    parts += [_Part(_Answer(written), fixing=True) for written in fixes if written.strip()]
    for part in parts:
        part.read(rubric.misconceptions)

    misconceptions = [_misconception_verdict(m.id, parts) for m in rubric.misconceptions]
    held = {verdict.id for verdict in misconceptions if verdict.matched}
    rivals_of: dict[str, list[str]] = {}
    for misconception in rubric.misconceptions:
        for claim_id in misconception.contradicts:
            rivals_of.setdefault(claim_id, []).append(misconception.id)
    claims = [
        _claim_verdict(claim, rivals_of.get(claim.id, []), held, parts) for claim in rubric.claims
    ]
    return Grade(
        claims=claims,
        misconceptions=misconceptions,
        truncated=truncated,
        questions=questions.strip(),
    )


@dataclass(slots=True)
class _Part:
    """One stretch of the answer read on its own: the answer, or one summary section."""

    answer: _Answer
    fixing: bool  # the section that lists corrected misconceptions
    found: dict[str, list[_Hit]] = field(default_factory=dict)
    stated_in: dict[int, list[str]] = field(default_factory=dict)  # clause -> misconceptions
    held_in: dict[int, list[str]] = field(default_factory=dict)  # … asserted there

    def read(self, misconceptions: list[Misconception]) -> None:
        for misconception in misconceptions:
            hits = self.answer.find(_matchers(misconception), quotes_mention=True, spans=True)
            self.found[misconception.id] = hits
            for hit in hits:
                if hit.polarity in ("asserted", "mentioned", "hypothetical"):
                    for clause in hit.clauses:
                        self.stated_in.setdefault(clause, []).append(misconception.id)
                if hit.polarity == "asserted":
                    for clause in hit.clauses:
                        self.held_in.setdefault(clause, []).append(misconception.id)


def _misconception_verdict(m_id: str, parts: list[_Part]) -> MisconceptionVerdict:
    hits = [(part, hit) for part in parts for hit in part.found[m_id]]
    for fixing, polarity, status in (
        (False, "asserted", "held"),
        (True, None, "fixed"),
        (False, "denied", "rejected"),
        (False, "mentioned", "rejected"),
        (False, "hypothetical", "undecided"),
    ):
        evidence = next(
            (
                hit.quote
                for part, hit in hits
                if part.fixing == fixing and polarity in (None, hit.polarity)
            ),
            None,
        )
        if evidence is not None:
            return MisconceptionVerdict(
                id=m_id, matched=status == "held", evidence=evidence, status=status
            )
    return MisconceptionVerdict(id=m_id, matched=False)


def _claim_verdict(
    claim: RubricClaim, rivals: list[str], held: set[str], parts: list[_Part]
) -> ClaimVerdict:
    """Met where a clause asserts it and no misconception it contradicts is held; denied
    only where a clause negates it; undecided where the answer says both."""
    asserted: list[_Hit] = []
    denials: list[_Hit] = []
    blocked: list[tuple[_Hit, str]] = []  # asserted beside a misconception that denies it
    for part in parts:
        hits = part.answer.find(_matchers(claim))
        rejecting = {  # a clause rejecting a rival rejects it, not the claim sharing its words
            hit.clause
            for rival in rivals
            for hit in part.found.get(rival, [])
            if hit.polarity == "denied"
        }
        for hit in hits:
            stated = part.stated_in.get(hit.clause, [])
            # only a misconception asserted here withdraws the claim; a quoted one does not
            rival = next((m for m in rivals if m in part.held_in.get(hit.clause, [])), None)
            if part.fixing and stated:  # a corrected misconception withdraws nothing
                continue
            if hit.polarity == "asserted" and rival is not None:
                blocked.append((hit, rival))
            elif stated:  # a clause stating a misconception is no evidence for any claim
                continue
            elif hit.polarity == "asserted":
                asserted.append(hit)
            elif hit.polarity == "denied" and hit.clause not in rejecting:
                denials.append(hit)
    spoiler = next((m for m in rivals if m in held), None)
    if (asserted and spoiler is not None) or (blocked and not asserted):
        hit, rival = (asserted[0], spoiler) if asserted else blocked[0]
        return ClaimVerdict(
            id=claim.id,
            met=False,
            evidence=hit.quote,
            denied=True,
            contradicted_by=spoiler or rival,
            status="withdrawn",
        )
    if asserted and denials:
        return ClaimVerdict(id=claim.id, met=False, evidence=asserted[0].quote, status="undecided")
    if asserted:
        return ClaimVerdict(id=claim.id, met=True, evidence=asserted[0].quote, status="met")
    if denials:
        return ClaimVerdict(
            id=claim.id, met=False, evidence=denials[0].quote, denied=True, status="denied"
        )
    return ClaimVerdict(id=claim.id, met=False)


# reading an answer -----------------------------------------------------------------------

Polarity = Literal["asserted", "denied", "mentioned", "hypothetical"]
Span = tuple[int, int]

# Length-preserving folding, so that spans in the folded text quote the learner's own text:
# full-width ASCII to ASCII, curly apostrophes to ', ASCII case, hyphens to spaces.
_WIDTH_FOLD: dict[int, int | str] = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_WIDTH_FOLD[0x3000] = " "
_FOLD = _WIDTH_FOLD | {ord("’"): "'", ord("‘"): "'", ord("-"): " ", ord("_"): " "}
_FOLD |= {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}

# A clause ends at these; a "." only when it is not a decimal point.
_CLAUSE_END = re.compile(r"[。！？；，,;!?\n…:：]|(?<!\d)\.|\.(?!\d)|(?<=[✗✘❌])")
# A colon ends a clause only after a verdict (`that's wrong: an ID is a row`, `「…」：不对`);
# elsewhere it joins a term to what is said of it (`ID：行号`).
_VERDICT_BEFORE_COLON = re.compile(
    r"(?:wrong|false|incorrect|untrue|not true|不对|错的|错了|不正确|不成立)\W*$|[」』”\"]\s*$"
)
_QUOTED = re.compile(r"「[^」]*」|『[^』]*』|“[^”]*”|\"[^\"\n]*\"")
_ASCII_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# Chinese: a jieba token that starts with one of these negates what follows it …
_NEGATING_START = "不没未别莫勿"
_NEGATING_ZH = (
    "并非", "非", "而非", "无法", "毫无", "从未", "从不", "绝不", "无须", "无需", "并不",
)  # fmt: skip
# … unless it is one of these words, which only look negative.
_NOT_NEGATING_ZH = (
    "不同", "不断", "不仅", "不但", "不过", "不少", "不久", "不管", "不论", "不光", "不错",
    "没错", "不得不", "不停", "未来", "不妨",
)  # fmt: skip
# Words that deny the whole clause, wherever they stand (…是错的, 我以为…).
_DENIAL_ZH = {
    "错", "错的", "错了", "错误", "不对", "不成立", "误解", "误区", "迷思", "以为", "原以为",
    "误以为", "曾以为", "本以为", "误认为", "其实不然", "并非如此", "不然",
}  # fmt: skip
# Words that make a clause report an idea instead of holding it (如果…, …被当成…): a
# misconception there is mentioned, not asserted.
_REPORT_ZH = {"当成", "当作", "看成", "误当", "误把", "当"}
# A condition (如果…, if…) makes a misconception in its clause a hypothesis: maybe the
# learner's, maybe not. Across a comma (`if IDs are close, meanings are similar`) it is a
# rule the learner states.
_CONDITION_ZH = {"如果", "假如", "要是", "假设", "若"}
# A negation followed by one of these denies a relation stated before it, so the whole
# clause: `查表和 one-hot 乘表不是一回事`.
_RELATION_ZH = ("一回事", "一样", "相同", "等价", "一码事", "同一回事", "同一件事", "相等", "等于")
# A turn ends a negation's scope: `ID 不是数值而是行号`.
_TURN_ZH = {"而是", "而", "但", "但是", "却", "其实", "然而", "而且"}
# What a bare denial may hold besides the denial itself.
_FILLER_WORDS_ZH = (
    "这", "那", "这个", "那个", "这种", "这样", "那样", "说法", "想法", "看法", "是", "的", "了",
    "其实", "当然", "完全", "根本", "并", "也", "就", "可", "吗", "呢", "啊", "如此", "正确",
    "对", "成立", "真的", "样", "这是", "个",
)  # fmt: skip
_FILLER_ZH = re.compile("|".join(sorted(_FILLER_WORDS_ZH, key=len, reverse=True)))
_NEGATION_EN = re.compile(
    r"(?<![a-z])(?:not(?! only)|no(?! matter)|never|cannot|neither|nor|none|nothing|without"
    r"|[a-z]+n't)(?![a-z])"
)
_DENIAL_EN = re.compile(
    r"(?<![a-z])(?:wrong|false|untrue|incorrect|myth|misconception|mistaken|i thought"
    r"|used to (?:think|believe))(?![a-z])"
)
_REPORT_EN = re.compile(
    r"(?<![a-z])(?:would|as though|treat\w*|(?:people|some|many|they|others) (?:say|think|believe))"
    r"(?![a-z])|有人(?:说|认为|觉得|以为)|别人(?:说|认为|觉得)|常有人说"
)
_CONDITION_EN = re.compile(r"(?<![a-z])(?:if|suppose|supposing)(?![a-z])")
# Past beliefs (以前觉得…, 之前我一直认为…) and crossed-out marks deny a clause too.
_DENIAL_MARKS = re.compile(
    r"(?:之前|以前|曾经|原来|原先|过去|本来)我?(?:一直)?(?:都)?(?:觉得|认为|相信|以为)|[✗✘❌]"
)
_RELATION_EN = re.compile(r"(?:(?<![a-z])not|n't)\s+(?:the same|equivalent|equal|identical)")
_TURN_EN = re.compile(r"(?<![a-z])(?:but|rather|instead|whereas|although|though)(?![a-z])")
_FILLER_EN = {
    "that", "this", "it", "is", "s", "it's", "that's", "a", "an", "the", "just", "simply",
    "so", "really", "true", "right", "correct", "case", "of", "course", "at", "all", "quite",
    "was", "totally", "completely",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Matcher:
    """One phrase: a regex per synonym set."""

    sets: tuple[re.Pattern[str], ...]


@dataclass(frozen=True, slots=True)
class _Hit:
    clause: int
    polarity: Polarity
    quote: str
    clauses: tuple[int, ...]  # the clause, or the two clauses of one sentence it spans


def _matchers(item: RubricClaim | Misconception) -> tuple[_Matcher, ...]:
    return _compiled(tuple(item.phrases_zh), tuple(item.phrases_en))


@cache
def _compiled(phrases_zh: tuple[str, ...], phrases_en: tuple[str, ...]) -> tuple[_Matcher, ...]:
    return tuple(
        _Matcher(tuple(re.compile(_set_pattern(words)) for words in phrase_sets(phrase)))
        for phrase in (*phrases_zh, *phrases_en)
    )


def _set_pattern(words: Iterable[str]) -> str:
    folded = sorted({word.translate(_FOLD).strip() for word in words}, key=len, reverse=True)
    return "|".join(f"(?:{_word_pattern(word)})" for word in folded)


def _word_pattern(word: str) -> str:
    """ASCII words match whole (`id` not in `idea`; `learn*` is a prefix); spaces and the
    seam between ASCII and Chinese may be present or not (`one hot` = `onehot`, `ID只是`)."""
    parts, previous_ascii = [], None
    for piece in re.findall(r"[a-z0-9']+\*?|\s+|.", word):
        if piece.isspace():
            parts.append(r"\s*")
            previous_ascii = None
            continue
        is_ascii = piece[0].isascii()
        if previous_ascii is not None and previous_ascii != is_ascii:
            parts.append(r"\s*")
        parts.append(
            re.escape(piece.removesuffix("*")) + ("[a-z0-9']*" if piece[-1] == "*" else "")
        )
        previous_ascii = is_ascii
    pattern = "".join(parts)
    if word[:1].isascii() and word[:1].isalnum():
        pattern = r"(?<![a-z0-9])" + pattern
    if word[-1:].isascii() and word[-1:].isalnum():
        pattern += r"(?![a-z0-9])"
    return pattern


@dataclass(slots=True)
class _Clause:
    start: int
    end: int
    negations: list[Span] | None = None  # found on first need: jieba is slow to load
    denials: list[Span] | None = None
    reports: list[Span] | None = None
    conditions: list[Span] | None = None
    turns: list[int] | None = None
    bare_denial: bool = False
    question: bool = False
    comma: bool = False  # ends at a comma: the next clause goes on with the sentence


class _Answer:
    """The answer, folded and cut into clauses, with each clause's negations found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = text.translate(_FOLD)
        self.clauses = list(self._clauses())
        self._starts = [clause.start for clause in self.clauses]
        self.quoted = [match.span() for match in _QUOTED.finditer(self.folded)]
        self._words: dict[re.Pattern[str], dict[int, list[Span]]] = {}

    def _clauses(self) -> Iterator[_Clause]:
        start = 0
        for match in _CLAUSE_END.finditer(self.folded):
            before = self.folded[start : match.start()]
            if match.group() in (":", "：") and not _VERDICT_BEFORE_COLON.search(before):
                continue
            if before.strip():
                asked = match.group() == "?" or before.rstrip()[-1] == "吗"
                comma = match.group() in (",", "，")
                yield _Clause(start, match.start(), question=asked, comma=comma)
            start = match.end()
        if self.folded[start:].strip():
            yield _Clause(start, len(self.folded), question=self.folded.rstrip()[-1] == "吗")

    def _occurrences(self, pattern: re.Pattern[str]) -> dict[int, list[Span]]:
        """Where a synonym set's words occur, by clause: one pass over the whole answer."""
        if pattern not in self._words:
            by_clause: dict[int, list[Span]] = {}
            for match in pattern.finditer(self.folded):
                number = bisect_right(self._starts, match.start()) - 1
                if number >= 0 and match.end() <= self.clauses[number].end:
                    by_clause.setdefault(number, []).append(match.span())
            self._words[pattern] = by_clause
        return self._words[pattern]

    def find(
        self, matchers: tuple[_Matcher, ...], *, quotes_mention: bool = False, spans: bool = False
    ) -> list[_Hit]:
        """Every clause where one of the phrases appears, with how it appears there; with
        `quotes_mention`, words inside quotes are mentioned, not asserted; with `spans`, a
        phrase of three parts or more may also run over two clauses of one sentence, its
        first two parts in the first (`ID 相近，说明意思相近`)."""
        best: dict[tuple[int, ...], Polarity] = {}

        def keep(where: tuple[int, ...], polarity: Polarity | None) -> None:
            if polarity is not None and _RANK[polarity] > _RANK.get(best.get(where), -1):
                best[where] = polarity

        for matcher in matchers:
            by_set = [self._occurrences(pattern) for pattern in matcher.sets]
            candidates = set(by_set[0]).intersection(*by_set[1:])
            for number in candidates:
                occurrences = [spans[number] for spans in by_set]
                keep((number,), self._polarity(number, occurrences, quotes_mention))
            if not spans or len(by_set) < 3:
                continue
            for number in set(by_set[0]) - candidates:
                if number + 1 >= len(self.clauses) or not self.clauses[number].comma:
                    continue
                for split in range(2, len(by_set)):
                    first = [found.get(number, []) for found in by_set[:split]]
                    second = [found.get(number + 1, []) for found in by_set[split:]]
                    if all(first) and all(second):
                        keep((number, number + 1), self._across(number, first, second))
        hits = []
        for where in sorted(best):
            polarity = best[where]
            if polarity == "asserted" and self._denied_by_next(where[-1]):
                polarity = "denied"
            first, last = self.clauses[where[0]], self.clauses[where[-1]]
            hits.append(_Hit(where[0], polarity, self._quote(first.start, last.end), where))
        return hits

    def _across(
        self, number: int, first: list[list[Span]], second: list[list[Span]]
    ) -> Polarity | None:
        """A phrase read over two clauses: denied or mentioned if either part is; a condition
        in the first is the rule's own (`if …, …`), not a hypothesis. A turn in the second
        (but, 却) sets it against the first: no phrase runs over it."""
        if self._cued(number + 1).turns:
            return None
        polarities = (
            self._polarity(number, first, True, rule=True),
            self._polarity(number + 1, second, True, rule=True),
        )
        if None in polarities:
            return None
        for polarity in ("denied", "mentioned"):
            if polarity in polarities:
                return polarity
        return "asserted"

    def _cued(self, number: int) -> _Clause:
        """The clause with its negations found (jieba is slow: only clauses that need it)."""
        clause = self.clauses[number]
        if clause.negations is None:
            _find_cues(self.folded, clause)
        return clause

    def _denied_by_next(self, number: int) -> bool:
        return number + 1 < len(self.clauses) and self._cued(number + 1).bare_denial

    def _quote(self, start: int, end: int, limit: int = 80) -> str:
        text = self.text[start:end].strip()
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def _polarity(
        self, number: int, occurrences: list[list[Span]], quotes_mention: bool, rule: bool = False
    ) -> Polarity | None:
        if _distinct(occurrences) is None:
            return None
        if self.clauses[number].question:  # asked, not said: neither asserted nor denied
            return "mentioned"
        clause = self._cued(number)
        words = [span for spans in occurrences for span in spans]
        assert clause.negations is not None and clause.denials is not None
        # a denial covers its clause up to the next turn (`I used to think X but Y`)
        denied = [
            self._scope(clause, (clause.start, cue[1]))
            for cue in clause.denials
            if not _inside(cue, words)
        ]
        if any(_inside(word, denied) for word in words):
            return "denied"
        # a cue inside the phrase's own words (没有意义, 不随) is the phrase speaking
        scopes = [self._scope(clause, cue) for cue in clause.negations if not _inside(cue, words)]
        free = [[s for s in spans if not _inside(s, scopes)] for spans in occurrences]
        if any(not spans for spans in free) or _distinct(free) is None:
            return "denied"
        if not quotes_mention:
            return "asserted"
        assert clause.reports is not None and clause.conditions is not None
        if clause.reports:
            return "mentioned"
        unquoted = [[s for s in spans if not _inside(s, self.quoted)] for spans in free]
        if any(not spans for spans in unquoted) or _distinct(unquoted) is None:
            return "mentioned"
        return "hypothetical" if clause.conditions and not rule else "asserted"

    @staticmethod
    def _scope(clause: _Clause, cue: Span) -> Span:
        assert clause.turns is not None
        end = min((turn for turn in clause.turns if turn >= cue[1]), default=clause.end)
        return (cue[0], end)  # from the cue itself: 随 in 不随 is negated


_RANK: dict[Polarity | None, int] = {"mentioned": 0, "hypothetical": 1, "denied": 2, "asserted": 3}


def _find_cues(folded: str, clause: _Clause) -> None:
    """The clause's negations, whole-clause denials and turns, in folded-text offsets."""
    text = folded[clause.start : clause.end]
    negations = [match.span() for match in _NEGATION_EN.finditer(text)]
    denials = [
        match.span()
        for pattern in (_DENIAL_EN, _RELATION_EN, _DENIAL_MARKS)
        for match in pattern.finditer(text)
    ]
    reports = [match.span() for match in _REPORT_EN.finditer(text)]
    conditions = [match.span() for match in _CONDITION_EN.finditer(text)]
    turns = [match.start() for match in _TURN_EN.finditer(text)]
    for word, start, end in _segment(text):
        if word in _DENIAL_ZH:
            denials.append((start, end))
        elif word in _REPORT_ZH:
            reports.append((start, end))
        elif word in _CONDITION_ZH:
            conditions.append((start, end))
        elif word in _TURN_ZH:
            turns.append(start)
        elif _negating(word):
            rest = word.lstrip("并不没未别莫勿非无从绝是")
            relation = any(after.lstrip().startswith(_RELATION_ZH) for after in (rest, text[end:]))
            (denials if relation else negations).append((start, end))
    clause.negations = [(clause.start + a, clause.start + b) for a, b in negations]
    clause.denials = [(clause.start + a, clause.start + b) for a, b in denials]
    clause.reports = [(clause.start + a, clause.start + b) for a, b in reports]
    clause.conditions = [(clause.start + a, clause.start + b) for a, b in conditions]
    clause.turns = sorted(clause.start + turn for turn in turns)
    clause.bare_denial = bool(negations or denials) and _says_nothing_else(
        text, negations + denials
    )


def _says_nothing_else(text: str, cues: list[Span]) -> bool:
    """Only cues and filler (这是错的, that's wrong): a denial of the clause before."""
    for start, end in cues:
        text = text[:start] + " " * (end - start) + text[end:]
    words = [word for word in _ASCII_WORD.findall(text) if word not in _FILLER_EN]
    return not words and not has_cjk(_FILLER_ZH.sub("", text))


def _negating(word: str) -> bool:
    """不是, 没有, 不随, 并不等于 …, but not 不同, 不断, 不仅."""
    if word.startswith(_NOT_NEGATING_ZH):
        return False
    return word[0] in _NEGATING_START or word.startswith(_NEGATING_ZH)


def _segment(text: str) -> list[tuple[str, int, int]]:
    """jieba's Chinese words with their offsets, only where a negation could be."""
    if not has_cjk(text) or not any(char in text for char in _CUE_CHARS):
        return []
    tokenizer = segmenter(_CUE_CHARS)
    return [(w, a, b) for w, a, b in tokenizer.tokenize(text, HMM=False) if has_cjk(w)]


# Only words holding one of these characters can be cues, so jieba loads just those words
# of its dictionary (tutor.core.segment says why and what it costs).
_CUE_CHARS = frozenset("不没未别莫勿非无从绝并错误以如假要若当看而但却其然迷")


def _overlaps(span: Span, others: Iterable[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)


def _inside(span: Span, regions: Iterable[Span]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in regions)


def _distinct(choices: list[list[Span]]) -> list[Span] | None:
    """One span per synonym set, no two overlapping (a word cannot fill two sets)."""
    chosen: list[Span] = []

    def pick(index: int) -> bool:
        if index == len(choices):
            return True
        for span in choices[index][:8]:  # a few candidates per set is plenty
            if not _overlaps(span, chosen):
                chosen.append(span)
                if pick(index + 1):
                    return True
                chosen.pop()
        return False

    return chosen if pick(0) else None


# numeric answers -------------------------------------------------------------------------

MAX_NUMBER_CHARS = 100
_NUMBER_FOLD = {ord("×"): "*", ord("·"): "*", ord("÷"): "/", ord("−"): "-", ord("^"): "**"}
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ROOT = re.compile(r"√\s*(\d+(?:\.\d*)?|pi|e)")
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: math.pow,
}
_NAMES = {"pi": math.pi, "e": math.e}
# what Python's parser may see: anything else it would skip (a comment) or misread is refused
_EXPRESSION = re.compile(r"[0-9A-Za-z.+\-*/() ]+")


def read_number(text: str) -> float | None:
    """A number as people type it: `1.41`, `248,320`, `√2`, `sqrt(2)`, `2**0.5`, `2^0.5`.

    Arithmetic (+ - * / ** and sqrt) is evaluated on a parsed tree, never with eval; None
    for anything else, for more than MAX_NUMBER_CHARS characters, or a result that is not
    a finite real number (`9**9**9`, `sqrt(-1)`).
    """
    cleaned = text.translate(_WIDTH_FOLD).strip()
    if not cleaned or len(cleaned) > MAX_NUMBER_CHARS:
        return None
    cleaned = _THOUSANDS.sub("", cleaned.translate(_NUMBER_FOLD))
    cleaned = re.sub(r"(?<=\d)[\s_]+(?=\d)", "", cleaned)  # 248 320, 248_320
    cleaned = _ROOT.sub(r"sqrt(\1)", cleaned.replace("π", "pi")).replace("√(", "sqrt(")
    if not _EXPRESSION.fullmatch(cleaned):  # a comment, a control character, a line break
        return None
    try:
        value = _evaluate(ast.parse(cleaned, mode="eval").body)
    except (SyntaxError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
        return None
    return value if value is not None and math.isfinite(value) else None


def _evaluate(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant):
        kind = type(node.value)
        return float(node.value) if kind in (int, float) else None
    if isinstance(node, ast.Name):
        return _NAMES.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        if value is None:
            return None
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if left is None or right is None:
            return None
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sqrt":
        if len(node.args) != 1 or node.keywords:
            return None
        value = _evaluate(node.args[0])
        return None if value is None else math.sqrt(value)
    return None


def number_as_stored(value: float) -> str:
    """A numeric answer as the store keeps it: the number read, never the text typed
    (which may carry anything the parser skipped), whole numbers without ".0"."""
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def shown_number(value: float, tolerance: float) -> str:
    """A number at the precision the question asks for: tolerance 0.01 shows 1.41."""
    if tolerance <= 0 or tolerance >= 1:
        return f"{value:,g}" if tolerance <= 0 else f"{value:,.0f}"
    return f"{value:,.{math.ceil(-math.log10(tolerance) - 1e-9)}f}"
