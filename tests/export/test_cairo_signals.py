"""Ctrl-C and SIGTERM while cairo writes a PDF or PNG: exit 130 or 143 with one line, never a
traceback from cffi's write callback (docs/reliability.md, "Signals").

Deterministic: a hook wraps cairo's write callback (cairocffi's ``_make_write_func``) so
that its first write sends the signal to the process itself; Python runs the handler at
once, inside the callback, where an exception cannot unwind through C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.layout_io import saving
from tests.conftest import ROOT

LAYOUT = ROOT / "layouts" / "starter-4x-a6000.toml"

# The hook, in the process under test: the first write of cairo's callback signals us.
_SIGNAL_IN_CALLBACK = """
import os, signal, sys
import cairocffi.surfaces as surfaces
make = surfaces._make_write_func
sent = []
class Writer:
    def __init__(self, inner):
        self.inner = inner
    def write(self, data):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), {signum})
        return self.inner.write(data)
surfaces._make_write_func = lambda file_obj: make(Writer(file_obj) if file_obj else file_obj)
sys.argv = ["rackdesigner", *sys.argv[1:]]
from rackdesigner.cli.main import main
main()
"""


def _signal_in_callback(monkeypatch: pytest.MonkeyPatch, signum: int) -> list[int]:
    import cairocffi.surfaces as surfaces

    make = surfaces._make_write_func
    sent: list[int] = []

    class Writer:
        def __init__(self, inner):
            self.inner = inner

        def write(self, data):
            if not sent:
                sent.append(signum)
                os.kill(os.getpid(), signum)
            return self.inner.write(data)

    monkeypatch.setattr(
        surfaces, "_make_write_func", lambda f: make(Writer(f) if f is not None else f)
    )
    return sent


@pytest.mark.parametrize("option", ["--pdf", "--png"])
def test_ctrl_c_while_cairo_writes_is_exit_130_in_one_line(monkeypatch, tmp_path, option):
    sent = _signal_in_callback(monkeypatch, signal.SIGINT)
    out = tmp_path / f"pack.{option[2:]}"
    result = CliRunner().invoke(cli, ["export", str(LAYOUT), option, str(out)])
    assert sent == [signal.SIGINT]  # the signal did land inside cairo's callback
    assert result.exit_code == 130, result.output
    assert result.stderr == "rackdesigner: interrupted\n"
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_while_cairo_writes_is_exit_143_in_one_line(monkeypatch, tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    saving.terminate_on_sigterm()  # as main() does; restored below
    try:
        sent = _signal_in_callback(monkeypatch, signal.SIGTERM)
        out = tmp_path / "pack.pdf"
        result = CliRunner().invoke(cli, ["export", str(LAYOUT), "--pdf", str(out)])
    finally:
        signal.signal(signal.SIGTERM, before)
    assert sent == [signal.SIGTERM]
    assert result.exit_code == 143, result.output
    assert result.stderr == "rackdesigner: terminated (SIGTERM)\n"
    assert list(tmp_path.iterdir()) == []


def test_a_deferred_signal_is_raised_by_check_or_when_the_block_ends():
    """Noted where it lands, raised by check(); the handlers are the ones before after."""
    with saving.signals_deferred() as check:
        os.kill(os.getpid(), signal.SIGINT)  # noted, not raised here
        with pytest.raises(KeyboardInterrupt):
            check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt), saving.signals_deferred():
        os.kill(os.getpid(), signal.SIGINT)  # raised when the block ends


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "code", "line"),
    [
        (signal.SIGTERM, 143, "rackdesigner: terminated (SIGTERM)"),
        (signal.SIGINT, 130, "rackdesigner: interrupted"),
    ],
)
def test_a_whole_process_signalled_in_cairo_s_callback(tmp_path: Path, signum, code, line):
    out = tmp_path / "pack.pdf"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _SIGNAL_IN_CALLBACK.format(signum=int(signum)),
            "export",
            str(LAYOUT),
            "--pdf",
            str(out),
        ],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == code, result.stderr
    assert result.stderr.strip() == line
    assert list(tmp_path.iterdir()) == []
