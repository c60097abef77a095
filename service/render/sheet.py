"""The score sheet, the chart of the running totals and the final standings, as data for the
`sheet` and `chart` macros (templates/_sheet.html, _chart.html) and the plain-text mails.

Scores are public (C10, C12): they come from the view's `rounds` and `totals`. Pages draw the
running totals as SVG (`score_chart`); mails as table cells (`bar_chart`), which every mail client
shows, and plain-text mails as a monospace sheet (`sheet_text`)."""

from __future__ import annotations

from flask_babel import gettext as _

PALETTE = ["#2563eb", "#dc2626", "#15803d", "#9333ea", "#c2410c", "#0e7490", "#be185d", "#4d7c0f"]  # 4.5:1 on white (labels)


def score_rows(view: dict) -> list[dict]:
    """One row per scored round: its number, the score per seat (None: no score), the running
    totals, the closer's seat and the doubled seats (C10); `cells` holds the same per seat as the
    sheet shows it (score, doubled, closed)."""
    rows = []
    n = len(view["players"])
    running = [0] * n
    for r in view.get("rounds", []):
        scores = list(r.get("scores") or [None] * n)
        for i, sc in enumerate(scores):
            if isinstance(sc, int):
                running[i] += sc
        doubled, closer = r.get("doubled") or [], r.get("closer")
        rows.append(
            {
                "round": r.get("round"),
                "scores": scores,
                "totals": list(running),
                "closer": closer,
                "doubled": doubled,
                "cells": [
                    {"score": sc, "doubled": i in doubled, "closed": i == closer}
                    for i, sc in enumerate(scores)
                ],
            }
        )
    return rows


def sheet_totals(view: dict) -> list:
    """Each player's total, in the order of `view["players"]` (the sheet's last row)."""
    totals = view.get("totals")
    return [totals[p["seat"]] if totals else p["total"] for p in view["players"]]


def _apart(ys: list[float], *, gap: float, top: float, bottom: float) -> list[float]:
    """The end labels' heights moved apart so that no two are closer than `gap` (close totals drew
    their labels on top of each other), kept in order and inside [top, bottom] where they fit."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [0.0] * len(ys)
    last = None
    for i in order:
        placed[i] = max(ys[i], top) if last is None else max(ys[i], last + gap)
        last = placed[i]
    if last is not None and last > bottom:  # shift the whole stack up, as far as the top allows
        shift = max(0.0, min(last - bottom, min(placed) - top))
        placed = [v - shift for v in placed]
    return placed


def score_chart(view: dict, width: int = 420, height: int = 180) -> dict | None:
    """The running totals as a line chart (one line per player, the rounds along x) for the `chart`
    macro: the drawing's size, the horizontal guide lines with their labels, the round numbers
    along x and each player's line (SVG coordinates, one decimal) with its end label. None when
    no round has been scored."""
    rows = score_rows(view)
    if not rows:
        return None
    players = view["players"]
    series = [[0] + [row["totals"][p["seat"]] for row in rows] for p in players]
    lo = min(min(s) for s in series)
    hi = max(max(s) for s in series + [[view.get("options", {}).get("target_score", 0) or 0]])
    hi = max(hi, lo + 1)
    pad_l, pad_r, pad_t, pad_b = 34, 40, 10, 22  # the right: the totals at the lines' ends (names: the legend)
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    steps = len(rows)

    def x(i: int) -> float:
        return pad_l + w * i / steps

    def y(v: float) -> float:
        return pad_t + h * (hi - v) / (hi - lo)

    ticks = sorted({lo, 0, hi} if lo < 0 else {lo, hi})
    label_ys = _apart([y(s[-1]) + 4 for s in series], gap=14, top=pad_t + 8, bottom=height - pad_b + 4)
    return {
        "width": width,
        "height": height,
        "left": pad_l,
        "right": pad_l + w,
        "guides": [
            {"y": f"{y(t):.1f}", "label_x": pad_l - 4, "label_y": f"{y(t) + 4:.1f}", "label": t}
            for t in ticks
        ],
        "rounds": [{"x": f"{x(i):.1f}", "y": height - 6, "label": i} for i in range(steps + 1)],
        "lines": [
            {
                "colour": PALETTE[k % len(PALETTE)],
                "name": p["name"],
                "last": s[-1],
                "points": " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s)),
                "label_x": f"{x(len(s) - 1) + 6:.1f}",
                "label_y": f"{label_ys[k]:.1f}",
            }
            for k, (p, s) in enumerate(zip(players, series, strict=True))
        ],
    }


def standings(view: dict) -> list[dict]:
    """The players by total, lowest first, with their places (equal totals share a place) and
    whether they won (C12)."""
    totals = view.get("totals") or [p.get("total") for p in view["players"]]
    winners = set(view.get("winners") or [])
    ranked = sorted(view["players"], key=lambda p: (totals[p["seat"]], p["seat"]))
    out, place, last = [], 0, None
    for i, p in enumerate(ranked, start=1):
        if totals[p["seat"]] != last:
            place, last = i, totals[p["seat"]]
        out.append(
            {
                "place": place,
                "name": p["name"],
                "seat": p["seat"],
                "total": totals[p["seat"]],
                "winner": p["seat"] in winners,
            }
        )
    return out


def bar_chart(view: dict) -> dict | None:
    """The totals as a chart every mail client shows (mails: Gmail and Outlook drop inline SVG):
    one bar per player, drawn by the `bars` macro as table cells whose widths are percentages of
    the game's end (`target_score`, or the highest total beyond it). Each bar: `name`, `total`,
    `colour`, `pct` (0-100; a total of 0 or less draws no bar) and `rest` (100 - pct). Labels sit
    in their own cells, so they never overlap. None when no round has been scored."""
    if not score_rows(view):
        return None
    totals = sheet_totals(view)
    target = (view.get("options") or {}).get("target_score") or 0
    top = max([target, *totals, 1])
    bars = []
    for k, (p, total) in enumerate(zip(view["players"], totals, strict=True)):
        pct = max(0, min(100, round(100 * total / top))) if isinstance(total, int) else 0
        bars.append({"name": p["name"], "total": total, "colour": PALETTE[k % len(PALETTE)], "pct": pct,
                     "rest": 100 - pct})
    return {"bars": bars, "target": target}


_TEXT_NAME = 10  # a column of the text sheet: 8 players fit a terminal's 80 columns


def sheet_text(view: dict) -> str:
    """The score sheet in monospace for plain-text mails: a column per player, a row per round
    (×2 doubled, * closed the round, C10), then the totals. Long names are shortened."""
    rows = score_rows(view)
    if not rows:
        return ""
    names = [p["name"] if len(p["name"]) <= _TEXT_NAME else p["name"][: _TEXT_NAME - 1] + "…" for p in view["players"]]
    width = [max(len(n), 6) for n in names]
    label = max(len(_("Round")), len(_("Total")))

    def cell(c: dict) -> str:
        if c["score"] is None:
            return "-"
        return f"{c['score']}{'×2' if c['doubled'] else ''}{'*' if c['closed'] else ''}"

    lines = [f"{_('Round'):<{label}}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, width, strict=True))]
    for row in rows:
        cells = [cell(row["cells"][p["seat"]]) for p in view["players"]]
        lines.append(f"{row['round']!s:<{label}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, width, strict=True)))
    totals = [str(t) for t in sheet_totals(view)]
    lines.append(f"{_('Total'):<{label}}  " + "  ".join(f"{t:>{w}}" for t, w in zip(totals, width, strict=True)))
    # "×2 doubled" only when somebody was doubled (issue 28.5)
    lines.append(_("* closed the round · ×2 doubled") if any_doubled(rows) else "* " + _("closed the round"))
    return "\n".join(lines)


def any_doubled(rows: list[dict]) -> bool:
    """Whether some score of the sheet was doubled (C10): the legend explains ×2 only then."""
    return any(c["doubled"] for row in rows for c in row["cells"] if c["score"] is not None)
