"""One training step, looked at: the project model takes one optimizer step on a sentence
and the learner sees the loss before and after and which rows moved.

Why a real step and not a picture: "only the rows the batch read are pushed" is a claim
about gradients, and the step shows it on the model itself: the sentence's rows change,
every other input row changes by exactly 0, every output row changes. torch runs only in
a child process (tutor.core.onestep), started when the learner presses Enter; it takes
a live-training slot in a served session and ends when the learner leaves the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.field import example_field
from tutor.tui.widgets.token_strip import visible_piece
from tutor.tui.widgets.update import update_in_place
from tutor.words.refusals import say

if TYPE_CHECKING:
    from tutor.content.widgets import OneStepWidget
    from tutor.core.onestep import OneStep, StepProcess


def take_step(
    process: StepProcess, text: str, optimizer: str
) -> tuple[OneStep, list[str], float] | Exception:
    """One step on `text` with the shipped project model in `process`: the result, the
    pieces of the rows it read, and the learning rate; or the refusal to show."""
    import json

    from tutor.core.model import open_model
    from tutor.core.onestep import SGD_LR, OneStepFailed
    from tutor.core.tokenize import TokenizeError

    model = open_model()
    try:
        ids = [token.id for token in model.scheme.encode(text)]
        eot = model.scheme.single_id("<|endoftext|>")
        step = process.run(ids, eot, model.path, optimizer)  # type: ignore[arg-type]
    except (TokenizeError, OneStepFailed, OSError) as refusal:
        return refusal
    finally:
        process.cancel()  # frees the slot when the encoding refused before the child ran
    config = json.loads((model.path / "config.json").read_text(encoding="utf-8"))
    pieces = [visible_piece(model.scheme.id_to_piece(id)) for id in step.changed_ids]
    return step, pieces, config["lr"] if optimizer == "adam" else SGD_LR


class OneStepDemo(Asking, Vertical, can_focus=True):
    """Enter takes one step on the sentence in the field; the result replaces the hint."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "step", "key.one_step", key_display="Enter"),
    ]

    DEFAULT_CSS = """
    OneStepDemo { height: auto; padding: 0 0 1 0; }
    OneStepDemo:focus #result { text-style: bold; }
    """

    def __init__(self, config: OneStepWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.said = ""
        self.step: StepProcess | None = None
        """The step going, which holds a live-training slot until it ends."""

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield example_field(self, self.config.text, self.config.editable, ctx.t("tokens.input"))
        yield Static(Content.styled(ctx.t("onestep.hint"), "dim"), id="result")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step()

    def action_step(self) -> None:
        from tutor.core.live import SlotBusy, why_not
        from tutor.core.onestep import StepProcess

        ctx = tutor_context(self)
        if self.step is not None:
            return  # one step at a time: its answer is on the way
        reason: Exception | None = why_not()
        if reason is None:
            try:
                self.step = process = StepProcess()
            except SlotBusy as busy:  # the training page's sentence, as for a run
                reason = busy
        if reason is not None:
            self._say(ctx.t("onestep.unavailable", reason=say(ctx, reason, "train.why")))
            return
        text, optimizer = self.query_one("#text", Input).value, self.config.optimizer
        self._say(ctx.t("onestep.working"))
        self.ask(lambda: take_step(process, text, optimizer), self._answer)

    def on_mount(self) -> None:
        # a page turned away from is kept, not unmounted (KEPT_PAGES in tutor/tui/app.py)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, _shown: object) -> None:
        """Another page (or the lesson list) replaced this one; a help screen over it did not."""
        if self.screen not in self.app.screen_stack:
            self._stop()

    def on_unmount(self) -> None:
        """The app ending (or the page dropped) ends a step still going."""
        self._stop()

    def _stop(self) -> None:
        """End the step still going and free its slot; the page shows the hint again."""
        if self.step is not None:
            step, self.step = self.step, None
            step.cancel()
            self._say(tutor_context(self).t("onestep.hint"))

    def _answer(self, answer: tuple[OneStep, list[str], float] | Exception) -> None:
        ctx = tutor_context(self)
        if self.step is None:
            return  # stopped by leaving the page: nothing to say
        self.step = None
        if isinstance(answer, Exception):
            self._say(say(ctx, answer))
            return
        step, pieces, lr = answer
        others = step.vocab_size - len(step.changed_ids)
        still = "onestep.others" if step.others_max == 0 else "onestep.others_moved"
        rows = " ".join(
            f"{piece}({id})" for piece, id in zip(pieces, step.changed_ids, strict=True)
        )
        self._say(
            "\n".join(
                [
                    ctx.t(
                        "onestep.loss",
                        before=f"{step.loss_before:.3f}",
                        after=f"{step.loss_after:.3f}",
                        optimizer={"adam": "Adam", "sgd": "SGD"}[self.config.optimizer],
                        lr=lr,
                    ),
                    ctx.t(
                        "onestep.rows",
                        changed=len(step.changed_ids),
                        read=len(step.read_ids),
                        tokens=rows,
                    ),
                    ctx.t(still, others=f"{others:,}", largest=f"{step.others_max:g}"),
                    ctx.t(
                        "onestep.head", head=f"{step.head_changed:,}", vocab=f"{step.vocab_size:,}"
                    ),
                ]
            )
        )

    def _say(self, text: str) -> None:
        self.said = text
        if still_shown(self):
            update_in_place(self.query_one("#result", Static), text)

    def plain_text(self) -> str:
        return self.said or tutor_context(self).t("onestep.hint")
