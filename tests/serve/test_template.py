"""Light sessions: forks of the pre-loaded session template (tutor/serve/template.py).

A forked session must look like a spawned one from inside (environment, terminal, signal
dispositions, limits, open files), come from the template, and a template that dies must
not take the server, or later learners, with it.
"""

from __future__ import annotations

import array
import asyncio
import json
import logging
import os
import signal
import socket
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import (
    Terminal,
    child_pids_of,
    gone,
    make_config,
    serving,
    session_pids_of,
    start_cli,
    stat_fields,
)
from tests.serve.standin import MARK
from tests.waits import wait_until
from tutor.commands.session import ENTRY, PRELOAD
from tutor.crash import EXIT_CRASH
from tutor.serve.child import ChildTerminal, child_environment
from tutor.serve.identity import Identity
from tutor.serve.process import child_argv
from tutor.serve.template import SessionTemplate

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")
LOG = logging.getLogger("tutor.serve")


def parent_of(pid: int) -> int:
    return int(stat_fields(pid)[1])


async def standin_facts(template: SessionTemplate | None, env: dict[str, str]) -> dict:
    """Start the stand-in as a session (forked if `template`, else spawned) and read what
    it reports about itself; its exit code is 5."""
    output = bytearray()
    codes: list[int] = []
    argv = child_argv(ENTRY, ["--lang", "en"], "SHA256:x")
    if template is None:
        argv[argv.index("tutor.serve.child")] = "tests.serve.standin"
    child = ChildTerminal(argv, env, (80, 24), output.extend, codes.append, template=template)
    await asyncio.wait_for(child.exited, 30)
    assert child.forked is (template is not None)
    assert codes == [5]
    text = output.decode().replace("\r\n", "")
    return json.loads(text[text.index(MARK) + len(MARK) : text.rindex(MARK)])


async def test_a_forked_session_is_set_up_as_a_spawned_one(tmp_path: Path) -> None:
    """Under nohup (SIGHUP ignored by the server) too: dispositions come back fresh."""
    env = child_environment("xterm-256color", {"NO_COLOR": "1"}, tmp_path, Identity("SHA256:x"))
    template = SessionTemplate(
        LOG, ("--lang", "en"), entry="tests.serve.standin:report", preload=PRELOAD
    )
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        assert await template.start()
        forked = await standin_facts(template, env)
        spawned = await standin_facts(None, env)
    finally:
        signal.signal(signal.SIGHUP, previous)
        await template.stop()
    assert forked["ppid"] != spawned["ppid"] == os.getpid()
    assert template.pid is None  # stopped and reaped
    # the template had Textual loaded; a spawned tutor imports it anew
    assert (forked.pop("textual_loaded"), spawned.pop("textual_loaded")) == (True, False)
    forked.pop("ppid"), spawned.pop("ppid")
    # stdio, the crash pipe, and listdir's own: nothing of the template's (a spawned child
    # also inherits whatever the server left inheritable; under pytest, its capture files)
    assert forked.pop("fds") == [0, 1, 2, 3, 4] == spawned.pop("fds")[:5]
    assert forked == spawned
    assert forked["env"] == env
    assert forked["args"] == ["--lang", "en", "--learner", "SHA256:x"]
    assert forked["blocked_ignored_caught"][0] == "0000000000000000"
    assert forked["handlers"][str(int(signal.SIGHUP))] == repr(signal.SIG_DFL)
    assert forked["session_leader"] and forked["terminal_is_controlling"]
    assert forked["stdio_on_tty"] == [True, True, True] and forked["stdout_line_buffered"]
    assert forked["crash_fd_is_pipe"]


async def test_a_request_the_template_cannot_serve_is_refused_and_it_goes_on(
    tmp_path: Path,
) -> None:
    template = SessionTemplate(LOG, entry="tests.serve.standin:report", preload=PRELOAD)
    assert await template.start()
    read_end, write_end = os.pipe()
    try:
        assert template._sock is not None
        request = json.dumps({"start": 99, "args": [], "env": {}}).encode()
        fds = array.array("i", [read_end])  # a pipe, and no crash pipe: not a session
        template._sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        answers: list[int | None] = []
        never = asyncio.get_running_loop().call_later(3600, print)
        template._asked[99] = (answers.append, print, never)  # as request() would
        await wait_until(lambda: answers == [None], "the template's refusal")
        assert template.usable
        env = child_environment("xterm", {}, tmp_path, Identity("SHA256:x"))
        assert (await standin_facts(template, env))["env"] == env
    finally:
        os.close(read_end)
        os.close(write_end)
        await template.stop()


async def test_before_the_template_answers_input_waits_and_a_hang_up_still_ends_it(
    tmp_path: Path,
) -> None:
    """The server does not wait for the fork: the session's pty exists at once."""
    template = SessionTemplate(LOG, entry="tests.serve.standin:echo_line", preload=PRELOAD)
    assert await template.start()
    env = child_environment("xterm", {}, tmp_path, Identity("SHA256:x"))
    argv = child_argv(ENTRY, [], "SHA256:x")
    try:
        output = bytearray()
        typed = ChildTerminal(argv, env, (80, 24), output.extend, print, template=template)
        assert typed.pid is None  # asked, not answered yet
        typed.write(b"typed early\n")
        assert await asyncio.wait_for(typed.exited, 30) == 5
        assert typed.forked and f"{MARK}typed early{MARK}".encode() in output
        hung_up = ChildTerminal(argv, env, (80, 24), bytearray().extend, print, template=template)
        assert hung_up.pid is None
        assert await hung_up.terminate() == -signal.SIGHUP
        assert hung_up.forked
    finally:
        await template.stop()


async def test_a_session_comes_from_the_template(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    async with serving(make_config(tmp_path)) as server:
        assert server.template is not None and server.template.usable
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        (pid,) = server.children
        assert server.children[pid].forked
        assert parent_of(pid) == server.template.pid
        term.press("q")
        assert await term.closed() == 0


async def test_a_forked_session_that_crashes_leaves_the_others_running(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    config = make_config(tmp_path, session_entry="tests.serve.standin:faulty_tutor")
    async with serving(config) as server:
        assert server.template is not None
        steady = await Terminal.open(server.port, keys["alice"])
        await steady.wait_for(*HOME_WORDS)
        home = await steady.settled()
        crashing = await Terminal.open(server.port, keys["bob"], size=(1, 1))  # its fault
        assert await crashing.closed() == EXIT_CRASH
        assert server.template.usable and len(server.children) == 1
        steady.press("\x10")  # ctrl+p: the palette still opens in the other session
        await steady.wait_for_change(home)
        steady.press("\x1b")
        await wait_until(lambda: steady.text == home, "the home screen again")
        steady.press("q")
        assert await steady.closed() == 0


async def test_spawn_start_still_serves(tmp_path: Path, keys: dict[str, asyncssh.SSHKey]) -> None:
    async with serving(make_config(tmp_path, session_start="spawn")) as server:
        assert server.template is None
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        (pid,) = server.children
        assert not server.children[pid].forked
        assert parent_of(pid) == os.getpid()
        term.press("q")
        assert await term.closed() == 0


async def test_a_template_crash_does_not_take_the_server_down(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    async with serving(make_config(tmp_path)) as server:
        template = server.template
        assert template is not None
        first = template.pid
        assert first is not None
        during = await Terminal.open(server.port, keys["alice"])
        await during.wait_for(*HOME_WORDS)
        (orphan,) = server.children
        os.kill(first, signal.SIGKILL)
        # the session forked from it dies with it (no tutor without its parent) and ends
        # like any other killed tutor; the server goes on
        assert await during.closed() == 128 + signal.SIGKILL
        await wait_until(lambda: gone(orphan), "the template's session to die with it")
        if orphan in child_pids_of(os.getpid()):  # adopted: this runner is PID 1
            os.waitpid(orphan, 0)
        await wait_until(lambda: template.usable and template.pid != first, "a new template")
        after = await Terminal.open(server.port, keys["bob"])
        await after.wait_for(*HOME_WORDS)
        (pid,) = server.children
        assert server.children[pid].forked and parent_of(pid) == template.pid
        after.press("q")
        assert await after.closed() == 0
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "session template exited with status -9, ending 1 sessions; restarting it "
        "(sessions start the plain way until it is ready)"
    ]


async def test_a_template_that_keeps_failing_leaves_sessions_to_spawn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    template = SessionTemplate(LOG, entry="no.such:thing", preload=PRELOAD)  # every start fails
    assert not await template.start()
    await wait_until(lambda: template.gave_up, "the template to be given up", timeout=120)
    assert not template.usable
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 3 and errors[-1].endswith(
        "it failed 3 times, so sessions start the plain way from now on"
    )
    await template.stop()


@pytest.mark.parametrize("how", ["fork", "spawn"])
async def test_the_session_start_option_of_tutor_serve(
    how: str, tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    proc, port, _ = await start_cli(tmp_path, "--session-start", how)
    try:
        term = await Terminal.open(port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        (pid,) = session_pids_of(proc.pid)
        children = child_pids_of(proc.pid)
        # forked: the server's one child is the template, the session's parent
        assert (children == [pid]) is (how == "spawn")
        assert (parent_of(pid) == proc.pid) is (how == "spawn")
        term.press("q")
        assert await term.closed() == 0
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 30)
