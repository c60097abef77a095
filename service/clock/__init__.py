"""clock: deadlines, reminders, quiet hours, vacations and digests as rows claimed by `tick`, and the
scheduler that runs the tick (in-process; the worker command is in `service.cli_service`). Imports
store/ only: the handlers that act on a due row are injected (`play.timeouts`, registered by
`create_app`).

* `zones`: time zones and quiet hours; `entries`: the clock data boards and mails show (the
  sentences are written by `service.render.clock_text`);
* `deadlines`: settings, the deadline rows the move's transaction keeps in step, `board_status`;
* `seats`: a seat's settings, the player acting, play now, vacations;
* `tick`: the sweep (claims with a conditional UPDATE, SKIP LOCKED on PostgreSQL);
* `scheduler`: APScheduler 3.x running `tick` on an interval.

Callers import each name from its module (naive UTC times: `store.outbox_models.naive_utc`).
"""
