"""`tutor new lesson ID [DIR]`: a lesson to start from, one page of each kind.

Each page shows the fields of its kind, a widget block and a fact reference, so an
author edits working content rather than writing front matter from memory; a test
checks that the result passes `tutor check` with no problem at all.
"""

from __future__ import annotations

from pathlib import Path

from tutor.content.models import LESSON_ID
from tutor.core.refusal import Coded

CARD = """\
---
# Fields: content/README.md, or `tutor check --schema` for your editor.
id: {lesson_id}
title: 新课的标题
question: 这一课回答的那一个问题？
topic: 主题
objectives:
  - 学完能做到的一件事
prerequisites:
  - knowledge: 学这一课之前应该知道的事
outcome: 学完带走的一句话
next: [留给以后的话题]
---
"""

PAGES: dict[str, str] = {
    "objectives": """\
---
kind: objectives
title: 这一课要做什么
---

写下这一课的目标。数字不要手打：我们的小模型有 {{fact:model.vocab_size}} 个 token
（`tutor facts` 列出所有可用的 key）。
""",
    "naive": """\
---
kind: naive
title: 最直接的想法
---

先认真试一试最直接的想法。

```tutor tokens
text: 小明把苹果给了小王
schemes: [byte-bpe-zh, char]
```
""",
    "failure": """\
---
kind: failure
title: 它在哪里失败
---

用真实数据说明它为什么不够。

```tutor neighbours
tokens: [猫, 狗]
schemes: [id, after]
k: 5
```
""",
    "fix": """\
---
kind: fix
title: 解决办法
---

讲清楚解决办法，以及它为什么有效。

```tutor pipeline
current: embedding
```
""",
    "quiz": """\
---
kind: quiz
title: 小测
questions:
  - id: first-question
    type: single
    prompt: 一个只有一个正确答案的问题？
    choices:
      - text: 正确的选项
        correct: true
        explain: 为什么它对。
      - text: 错误的选项
        explain: 为什么它错。
    explain: 答完之后显示的解释。
---
""",
    "wrapup": """\
---
kind: wrapup
title: 小结
---

这一课学到了什么，下一步去哪里。
""",
}


class ScaffoldError(Coded, ValueError):
    """Why the lesson was not created; the message is for the author (in English; the
    code and values let `tutor new` say it in the interface's language)."""


def new_lesson(lesson_id: str, parent: Path) -> list[Path]:
    """Write parent/lesson_id/ with lesson.md and NN-<kind>.md pages; the files written."""
    if not LESSON_ID.fullmatch(lesson_id):
        raise ScaffoldError(
            f"lesson id {lesson_id!r} must be lowercase letters, digits and '-' "
            "(it is typed in `tutor lesson ID`)",
            "bad_id",
            lesson_id=lesson_id,
        )
    folder = parent / lesson_id
    if folder.exists():
        message = f"{folder} already exists; choose another id or folder"
        raise ScaffoldError(message, "exists", folder=folder)
    folder.mkdir(parents=True)
    written = [folder / "lesson.md"]
    written[0].write_text(CARD.format(lesson_id=lesson_id), encoding="utf-8")
    for number, (kind, text) in enumerate(PAGES.items(), 1):
        page = folder / f"{number:02d}-{kind}.md"
        page.write_text(text, encoding="utf-8")
        written.append(page)
    return written
