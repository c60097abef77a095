"""What a load balancer and a monitoring system ask (issue 31.2):

* `/healthz`: liveness, the process answers (no database);
* `/readyz`: readiness, 200 or 503 with the failed checks by name (`play.health.readiness`: the
  database answers and is at the code's migration head, a clock worker swept within two of its
  intervals, no due mail or deadline older than READY_MAIL_AGE / READY_DEADLINE_AGE seconds);
* `/metrics`: Prometheus text, only with `Authorization: Bearer <METRICS_TOKEN>` (404 while the token
  is unset, 401 for a wrong one). Every figure is a gauge read from the database when scraped
  (`TablesCollector`), so each gunicorn worker gives the same answer; see `play.health`.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, Response, abort, current_app, request
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from service.play.health import ServiceStatus, readiness, service_status
from service.store.db import transaction

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    return {"ok": True}


def _status(totals: bool = True) -> ServiceStatus:
    with transaction() as s:
        return service_status(s, totals=totals)


@bp.get("/readyz")
def readyz():
    try:
        status = _status(totals=False)
    except Exception as exc:  # noqa: BLE001 - the database does not answer: not ready, and say so
        current_app.logger.warning("readyz: database: %s", type(exc).__name__)
        return {"ready": False, "failed": ["database"]}, 503
    config = current_app.config
    failed = readiness(status, mail_age=float(config["READY_MAIL_AGE"]),
                       deadline_age=float(config["READY_DEADLINE_AGE"]))
    body = {"ready": not failed, "failed": failed,
            "workers_alive": sum(h.alive for h in status.heartbeats),
            "oldest_due_mail_s": round(status.oldest_due_mail_s, 1),
            "oldest_overdue_deadline_s": round(status.oldest_overdue_s, 1)}
    return body, 503 if failed else 200


def _gauge(name: str, doc: str, value: float | None = None, labels: tuple[str, ...] = (),
           rows: dict | None = None) -> GaugeMetricFamily:
    g = GaugeMetricFamily(f"skyjo_{name}", doc, value=value, labels=list(labels) if labels else None)
    for key, n in (rows or {}).items():
        g.add_metric(list(key) if isinstance(key, tuple) else [key], n)
    return g


class TablesCollector(Collector):
    """The service's figures from one `service_status` reading per scrape."""

    def __init__(self, read=_status):
        self.read = read

    def collect(self):
        st = self.read()
        yield _gauge("games", "Games by status.", labels=("status",), rows=st.games)
        yield _gauge("moves", "Move rows (decisions' steps) in the database.", st.moves)
        yield _gauge("mails", "Outbox mails by state: pending, sent, dropped (a held turn mail no longer "
                     "needed), failed (the address failed for good).", labels=("state",), rows=st.mails)
        yield _gauge("mail_blocked_addresses", "Addresses not mailed: bounce (bounced) or never (asked).",
                     labels=("reason",), rows=st.blocked)
        yield _gauge("outbox_backlog", "Unsent mails that are due.", st.mail_backlog)
        yield _gauge("outbox_oldest_due_seconds", "Age of the oldest due unsent mail.", st.oldest_due_mail_s)
        yield _gauge("deadlines_overdue", "Open deadlines whose next event is due.", st.overdue_deadlines)
        yield _gauge("deadline_oldest_overdue_seconds", "Age of the oldest due deadline.", st.oldest_overdue_s)
        yield _gauge("replies", "Received reply mails by outcome.", labels=("outcome",), rows=st.replies)
        yield _gauge("migrations_at_head", "1 if the database is at the code's migration head.", float(st.at_head))
        yield _gauge("worker_sweep_seconds", "Duration of each clock process's last sweep.",
                     labels=("worker", "kind"), rows={(h.worker, h.kind): h.sweep_s for h in st.heartbeats})
        yield _gauge("worker_heartbeat_age_seconds", "Seconds since each clock process's last sweep.",
                     labels=("worker", "kind"), rows={(h.worker, h.kind): h.age_s for h in st.heartbeats})


def _registry() -> CollectorRegistry:
    registry = current_app.extensions.get("metrics_registry")
    if registry is None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(TablesCollector())
        current_app.extensions["metrics_registry"] = registry
    return registry


@bp.get("/metrics")
def metrics():
    token = current_app.config.get("METRICS_TOKEN")
    if not token:
        abort(404)
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return Response("a bearer token is required\n", 401, {"WWW-Authenticate": "Bearer",
                                                             "Content-Type": "text/plain; charset=utf-8"})
    return Response(generate_latest(_registry()), 200, {"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})
