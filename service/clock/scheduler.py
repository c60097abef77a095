"""APScheduler 3.x runs `tick` on an interval: in the background of `skyjo-pbem serve`
(`start_in_process`) or as `skyjo-pbem worker` (`run_worker`, any number of them). Beside it, once
a day (and a minute after the start), the outbox's retention (`skyjo-pbem prune`, issue 29.5),
injected by `create_app` like the reply poller; it is safe with several processes pruning at once.

One in-memory interval job per process and nothing else: no job store, no pickled jobs, nothing
shared between schedulers. Every deadline lives in our own tables and `tick` claims rows with
conditional UPDATEs, so any number of processes may tick at once and each deadline still fires
exactly once. `coalesce=True, max_instances=1`: a slow sweep is never overlapped by the next one
in the same process.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from service.clock.heartbeat import beat
from service.clock.tick import ClockHandlers, TickReport, tick

log = logging.getLogger(__name__)

JOB_ID = "skyjo-clock-tick"
DEFAULT_INTERVAL = 30.0  # seconds
HANDLERS_KEY = "clock_handlers"  # app.extensions[HANDLERS_KEY] = the service's ClockHandlers
REPLY_POLLER_KEY = "reply_poller"  # app.extensions[REPLY_POLLER_KEY](app): one pass over IMAP_URL
PRUNE_KEY = "outbox_prune"  # app.extensions[PRUNE_KEY](app): drop old mail bodies, finished games' mails
PRUNE_JOB_ID = "skyjo-prune"
PRUNE_EVERY = timedelta(days=1)
PRUNE_FIRST_AFTER = timedelta(minutes=1)  # not in the busy seconds of a start

_lock = threading.Lock()
_in_process: BackgroundScheduler | None = None
_worker = None  # the BlockingScheduler of `skyjo-pbem worker` (`worker_scheduler`)
_wake = threading.Event()  # a wake-up came: the in-process job sweeps (again) at once
_sweeping = threading.Event()  # the job is in a sweep now
MAX_WAKE_SWEEPS = 20  # sweeps one run of the job makes at most while wake-ups keep coming


def wake_in_process() -> None:
    """Ask this process's clock (if it runs one, `start_in_process`) to sweep now rather than at its
    next interval: e.g. right after a transaction that made a computer seat owe a decision committed
    (issue 18). A wake-up during a sweep makes the job sweep once more when it ends. Another process
    is reached through PostgreSQL (`store.wake`: the transaction's NOTIFY, delivered at its commit, to
    each worker's LISTEN, which calls this there, issue 31.2); on SQLite it sweeps at its interval."""
    sched = _in_process or _worker
    if sched is None or not sched.running:
        return
    _wake.set()
    if _sweeping.is_set():  # the running job sweeps again when it ends (no "skipped" run and warning)
        return
    try:
        sched.modify_job(JOB_ID, next_run_time=datetime.now(UTC))
    except JobLookupError:  # shutting down
        pass


def _sweeping_while_woken(job: Callable) -> Callable:
    """The in-process job: one sweep, and another while wake-ups came during the last one."""

    def run():
        report = None
        for _sweep in range(MAX_WAKE_SWEEPS):
            _sweeping.set()
            _wake.clear()
            report = job()
            _sweeping.clear()  # a wake-up from now on reschedules the job; one before it is seen here
            if not _wake.is_set():
                break
        return report

    return run


def _is_app(obj) -> bool:
    return hasattr(obj, "extensions") and hasattr(obj, "app_context")


def _app_parts(app, handlers):
    from service.store import db  # Flask side, imported only when an app is given

    handlers = handlers or app.extensions.get(HANDLERS_KEY)
    if handlers is None:
        raise RuntimeError("no clock handlers: create_app registers the service's (play.timeouts)")

    def factory():
        return db.transaction(write=True, app=app)

    return factory, handlers, app.app_context


def make_tick_job(session_factory, handlers, *, context: Callable | None = None,
                  heartbeat: tuple[str, float] | None = None, **tick_kwargs) -> Callable:
    """The job function: one sweep at the real time; logs and swallows errors (the next run
    retries), returns the report. `heartbeat` (kind, interval): after each sweep that did not fail,
    this process's row of `clock_heartbeat` (issue 31.2)."""

    def job() -> TickReport | None:
        try:
            with (context() if context else nullcontext()):
                report = tick(None, session_factory, handlers, **tick_kwargs)
                if heartbeat is not None:
                    beat(session_factory, kind=heartbeat[0], interval=heartbeat[1], sweep_s=report.elapsed_s)
        except Exception:  # noqa: BLE001 - keep the scheduler alive; the next sweep retries
            log.exception("clock sweep failed")
            return None
        if report.claimed or report.errors:
            log.info("clock sweep: %s", report)
        return report

    return job


def with_reply_polling(app, job: Callable) -> Callable:
    """The tick job, followed (when the app has IMAP_URL) by one pass over the reply mailbox: each
    unseen mail goes through `reply_service.handle_inbound`. Errors are logged; the next run retries."""
    if not app.config.get("IMAP_URL"):
        return job

    def job_and_replies():
        report = job()
        try:
            n = app.extensions[REPLY_POLLER_KEY](app)
            if n:
                log.info("reply mailbox: %s mails handled", n)
        except Exception:  # noqa: BLE001 - keep the scheduler alive; the next sweep retries
            log.exception("reply mailbox poll failed")
        return report

    return job_and_replies


def make_prune_job(app) -> Callable | None:
    """The daily job: one prune with the app's settings (`app.extensions[PRUNE_KEY]`), in an app
    context; logs and swallows errors (the next day retries). None when the app has no prune."""
    prune = app.extensions.get(PRUNE_KEY)
    if prune is None:
        return None

    def job():
        try:
            with app.app_context():
                return prune(app)
        except Exception:  # noqa: BLE001 - keep the scheduler alive
            log.exception("prune failed")
            return None

    return job


def _scheduler(cls, job: Callable, interval: float, app=None):
    sched = cls(timezone=UTC, job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None})
    sched.add_job(job, "interval", seconds=interval, id=JOB_ID, replace_existing=True,
                  next_run_time=datetime.now(UTC))
    prune = make_prune_job(app) if app is not None else None
    if prune is not None:
        sched.add_job(prune, "interval", seconds=PRUNE_EVERY.total_seconds(), id=PRUNE_JOB_ID,
                      replace_existing=True, next_run_time=datetime.now(UTC) + PRUNE_FIRST_AFTER)
    return sched


def start_in_process(app_or_factory, handlers: ClockHandlers | None = None, *,
                     interval: float | None = None, use_reloader: bool | None = None) -> BackgroundScheduler | None:
    """Start the clock in a background thread of this process (once; later calls return the running
    scheduler). `app_or_factory`: the Flask app (sessions from `db.transaction(write=True)`, handlers
    from `app.extensions["clock_handlers"]`, else `clock_service.ServiceClockHandlers()`, each sweep inside an app context, interval from
    `CLOCK_INTERVAL`) or a `session_factory` (then pass `handlers`).

    Under the Werkzeug debug reloader only the child process (WERKZEUG_RUN_MAIN=true) runs it; the
    watcher process gets None. `use_reloader` defaults to `app.debug`."""
    global _in_process
    with _lock:
        if _in_process is not None and _in_process.running:
            return _in_process
        if _is_app(app_or_factory):
            app = app_or_factory
            reloader = app.debug if use_reloader is None else use_reloader
            if reloader and os.environ.get("WERKZEUG_RUN_MAIN") != "true":
                return None
            factory, handlers, context = _app_parts(app, handlers)
            interval = interval or float(app.config.get("CLOCK_INTERVAL", DEFAULT_INTERVAL))
        else:
            if handlers is None:
                raise TypeError("start_in_process(session_factory, handlers): handlers are required")
            if use_reloader and os.environ.get("WERKZEUG_RUN_MAIN") != "true":
                return None
            factory, context = app_or_factory, None
            interval = interval or DEFAULT_INTERVAL
        job = make_tick_job(factory, handlers, context=context, heartbeat=("serve", interval))
        if _is_app(app_or_factory):
            job = with_reply_polling(app_or_factory, job)
        sched = _scheduler(BackgroundScheduler, _sweeping_while_woken(job), interval,
                           app=app_or_factory if _is_app(app_or_factory) else None)
        sched.start()
        _in_process = sched
        atexit.register(stop_in_process)
        log.info("clock: ticking every %ss in this process", interval)
        return sched


def worker_scheduler(app, handlers: ClockHandlers | None = None, *, interval: float) -> BlockingScheduler:
    """The foreground scheduler of `skyjo-pbem worker`: the sweep (and the reply mailbox) every
    `interval` seconds, again at once when woken (`wake_in_process`, from its LISTEN on PostgreSQL),
    its heartbeat after each sweep, and the daily prune. Started by the caller (`start()` blocks)."""
    global _worker
    factory, handlers, context = _app_parts(app, handlers)
    job = with_reply_polling(app, make_tick_job(factory, handlers, context=context, heartbeat=("worker", interval)))
    _worker = _scheduler(BlockingScheduler, _sweeping_while_woken(job), interval, app=app)
    return _worker


def stop_in_process(wait: bool = True) -> None:
    global _in_process
    with _lock:
        sched, _in_process = _in_process, None
    if sched is not None and sched.running:
        sched.shutdown(wait=wait)
