"""APScheduler wiring: the in-process clock runs `tick` on an interval, starts once per process,
not in the reloader's watcher process; the worker command and `run_worker(once=True)`."""

from __future__ import annotations

import argparse
import time
from contextlib import nullcontext
from datetime import timedelta

import pytest

from service import cli_service
from service.clock import scheduler
from service.clock.deadlines import ClockSettings, schedule_decisions
from service.clock.tick import session_factory_for
from service.store.clock_models import utcnow
from tests.service.test_clock_support import RecordingHandlers, setup_db


class FakeApp:
    """What start_in_process/run_worker use of a Flask app."""

    def __init__(self, eng, handlers, debug=False):
        self.extensions = {"skyjo_db": eng, "db_engine": eng, scheduler.HANDLERS_KEY: handlers}
        self.config = {"CLOCK_INTERVAL": 0.2}
        self.debug = debug

    def app_context(self):
        return nullcontext()


@pytest.fixture
def eng(tmp_path):
    eng = setup_db(f"sqlite:///{tmp_path / 'clock.sqlite3'}")
    yield eng
    scheduler.stop_in_process()
    eng.dispose()


def due_now(eng, game="g"):
    with session_factory_for(eng)() as s:
        schedule_decisions(s, game, [(0, "turn")], 1, utcnow() - timedelta(hours=2),
                                 ClockSettings.from_hours(1, ()))


def wait_for(pred, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_in_process_ticks_on_an_interval_and_starts_once(eng):
    h = RecordingHandlers()
    due_now(eng)
    app = FakeApp(eng, h)
    sched = scheduler.start_in_process(app)
    assert sched is not None and sched.running
    assert scheduler.start_in_process(app) is sched  # a second call does not start a second clock
    assert len(sched.get_jobs()) == 1
    assert wait_for(lambda: len(h.timeouts) == 1)
    due_now(eng, "g2")  # picked up by a later run of the interval job
    assert wait_for(lambda: len(h.timeouts) == 2)
    time.sleep(0.5)
    assert [t[0] for t in h.timeouts] == ["g", "g2"]


def test_not_in_the_reloader_watcher_process(eng, monkeypatch):
    app = FakeApp(eng, RecordingHandlers(), debug=True)
    monkeypatch.delenv("WERKZEUG_RUN_MAIN", raising=False)
    assert scheduler.start_in_process(app) is None  # the watcher: its child runs the clock
    monkeypatch.setenv("WERKZEUG_RUN_MAIN", "true")
    assert scheduler.start_in_process(app) is not None


def test_session_factory_form_needs_handlers(eng):
    with pytest.raises(TypeError):
        scheduler.start_in_process(session_factory_for(eng))


def test_run_worker_once_and_command(eng):
    h = RecordingHandlers()
    due_now(eng)
    assert cli_service.run_worker(app=FakeApp(eng, h), once=True, mail=False) == 0
    assert len(h.timeouts) == 1
    parser = argparse.ArgumentParser()
    cli_service.add_worker_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["worker", "--interval", "5", "--once", "--no-mail"])
    assert (args.func, args.interval, args.once, args.no_mail) == (cli_service.cmd_worker, 5.0, True, True)
