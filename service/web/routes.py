"""Routes: pages and the POST endpoints that change things. GET and HEAD never change anything."""

from __future__ import annotations

import re
import time

from flask import Blueprint, abort, current_app, flash, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError

from service import i18n
from service.mail.sender import wake_background_sender
from service.play import board, clock_service, games, lookups, moves, my_games, settings, talk
from service.play.errors import Conflict, Invalid, NotFound
from service.render.action_moves import pick_highlight
from service.render.links import move_path, seat_path, watch_path
from service.render.moves import describe, done_words, highlight_cells, move_groups, status_line
from service.render.reply_box import reply_examples
from service.render.rules import terms_of
from service.render.sheet import score_chart, score_rows, standings
from service.render.since import by_player, changed_cells, done_lines
from service.store import tokens
from service.store.db import transaction
from service.web import ratelimit
from service.web.forms import INT32, LinksForm, NewGameForm, db_int
from service.web.game_pages import follow_data
from service.words.reply_words import in_words_of

bp = Blueprint("web", __name__)
GAME_ID = re.compile(r"[0-9a-f]{1,24}")

# POST views that check a token of their own instead of the session's CSRF token (see
# `service._csrf_protect`): a move's Confirm form (`tokens.move_form_token`) and RFC 8058 one-click
# unsubscribe (the seat's link token; the mail client posts no form)
OWN_TOKEN_ENDPOINTS = frozenset({"web.move"})


def see_other(location: str):
    """303 to `location` after a POST, with an empty body (Flask's `redirect` writes a small HTML
    page that browsers never show; the Confirm POST of every move answers with this)."""
    return "", 303, {"Location": location}


@bp.after_app_request
def _wake_sender(response):
    """A POST may have queued mails: let the background sender (if this process runs one) deliver
    them now."""
    if response.status_code < 400 and request.method == "POST":
        wake_background_sender(current_app)
    return response


@bp.get("/")
def index():
    return render_template("index.html", links_form=LinksForm())


@bp.get("/favicon.ico")
def favicon():
    """The site icon (an SVG; pages link it, and browsers that ask for /favicon.ico get it too)."""
    return render_template("favicon.svg"), 200, {"Content-Type": "image/svg+xml",
                                                 "Cache-Control": "public, max-age=86400"}


@bp.route("/new", methods=["GET", "POST"])
def new_game():
    form = NewGameForm()
    if request.method == "GET":  # the host's language: the browser's until chosen (issue 17)
        form.host_lang.data = i18n.browser_language()
    if request.method == "POST" and not ratelimit.new_game_allowed(form.host_email.data):  # issue 29
        form.form_errors.append(_("Too many new games from here or for this address. Please try again later."))
        return render_template("new.html", form=form), 429
    if form.validate_on_submit():
        try:
            with transaction(write=True) as s:
                created = games.create_game(
                    s, host_name=form.host_name.data, host_email=form.host_email.data,
                    players=form.others(), variant=form.variant.data, options=form.options(),
                    decision_hours=form.decision_hours.data,
                    setup=current_app.config.get("GAME_SETUP"), host_tz=form.host_tz.data,
                    reminder_hours=form.reminders(), timeout_policy=form.timeout_policy.data,
                    host_lang=form.host_lang.data, langs=form.languages())
        except Invalid as exc:
            form.form_errors.append(exc.message)
        else:
            i18n.use_seat(form.host_lang.data)  # the host's pages from here on
            if created.game.status == "active":  # only computers were invited: dealt at once
                flash(_("Your game has started. Keep this page's address: it is your personal link (it was "
                        "mailed to you too)."))
            else:
                flash(_("Your game is set up and the invitations are on their way. Keep this page's address: "
                        "it is your personal link (it was mailed to you too)."))
            return see_other(seat_path(created.tokens[0]))
    status = 400 if request.method == "POST" else 200
    return render_template("new.html", form=form), status


@bp.route("/links", methods=["GET", "POST"])
def links():
    if request.method == "POST" and not ratelimit.allow("links", current_app.config["LINKS_RATE_LIMIT"]):
        abort(429)
    form = LinksForm()
    if form.validate_on_submit():
        # The answer must not tell who plays here: the same page for every address, and no sooner
        # than LINKS_ANSWER_SECONDS (a known address writes a mail row, an unknown one does not).
        started = time.monotonic()
        address = form.email.data.strip().lower()
        if ratelimit.allow("links-to", current_app.config["LINKS_RECIPIENT_RATE_LIMIT"], key=address):
            with transaction(write=True) as s:
                my_games.mail_my_links(s, form.email.data)
        time.sleep(max(0.0, current_app.config["LINKS_ANSWER_SECONDS"] - (time.monotonic() - started)))
        return render_template("message.html", title=_("Check your mail"), status=200, message=_(
            "If that address plays in any game here, we have sent it a link to the page of its games."))
    status = 400 if request.method == "POST" else 200
    return render_template("links.html", form=form), status


# ---------------------------------------------------------------------------------------------------
# a seat's pages


def _board_context(page: board.Board, token: str | None, pick: str | None = None, *,
                   whole_log: bool = False) -> dict:
    game, view = page.game, page.view
    seat = page.seat if page.seat is not None and page.seat.seat is not None else None
    groups = move_groups(view, pick) if seat is not None else []
    for g in groups:
        for opt in g["options"]:
            opt["url"] = move_path(token, opt["slug"], view["decision"])
            opt["form_token"] = tokens.move_form_token(token, opt["slug"], view["decision"])
    watch_url = watch_path(game.id, game.spectator_salt)
    here = seat_path(token) if token is not None else watch_url
    return {"game": game, "seat": seat, "token": token, "view": view, "groups": groups, "timeline": page.timeline,
            "rows": score_rows(view), "chart": score_chart(view),
            "standings": standings(view) if view.get("phase") == "game_over" else None,
            "status_line": status_line(view),
            "plan_examples": reply_examples(view) if seat is not None else [],
            "watch_url": watch_url, "deadline": lookups.deadline_of(game), **page.clock,
            # older rounds' events: a link to this page with them (issue 33.2), and back
            "log_all_url": None if whole_log or view.get("round", 1) <= 1 else f"{here}?log=all#talk",
            "log_round_url": f"{here}#talk" if whole_log else None,
            # the others' moves since the seat's own last one, and the cells they changed (issue 28.1)
            "since_runs": by_player(page.since, [p["name"] for p in view["players"]]),
            "changed": changed_cells(page.since),
            "follow": follow_data(page, here, version_url=f"{here}/version", owes=bool(groups), whole_log=whole_log)}


def _seat_page(token: str, *, message: str | None = None, status: int = 200, highlight=(),
               confirm: dict | None = None, template: str = "board.html", talk_text: str | None = None,
               done: int | None = None, plan_text: str | None = None, pick: str | None = None,
               whole_log: bool = False, ask: str | None = None):
    """A seat's page, from one read transaction (`board.seat_board`). `message`: why something was
    not done (the red box); `done`: the version a Confirm brought the game to (the green "Done:"
    line says this seat's decision that did it). `pick`: a first choice of a SKYJO Action pair
    (`?pick=`, move_groups): the page offers its second step; a GET, so it changes nothing.
    `whole_log`: the whole game's events, not only the current round's (`?log=all`). `ask`: the
    invitation page's confirmation step ("decline" or "cancel", issue 28.7)."""
    with transaction() as s:
        page = board.seat_board(s, token, done=done, whole_log=whole_log)
    return _render_seat_page(page, token, message=message, status=status, highlight=highlight, confirm=confirm,
                             template=template, talk_text=talk_text, plan_text=plan_text, pick=pick,
                             whole_log=whole_log, ask=ask)


def _render_seat_page(page: board.Board, token: str, *, message: str | None = None, status: int = 200,
                      highlight=(), confirm: dict | None = None, template: str = "board.html",
                      talk_text: str | None = None, plan_text: str | None = None, pick: str | None = None,
                      whole_log: bool = False, ask: str | None = None):
    """`_seat_page` from a page read already (`board.seat_board`)."""
    seat, game, seats = page.seat, page.game, page.seats
    title = i18n.game_title([r.name for r in seats if r.status != "declined"])  # in the reader's language
    if page.view is None:
        host_tz = next((r.tz for r in seats if r.is_host and r.tz), None) or "UTC"
        return render_template("invite.html", game=game, seat=seat, seats=seats, token=token,
                               rematch_of=page.rematch_of, message=message, zone_groups=i18n.zone_groups(), ask=ask,
                               terms=terms_of(game), rules_url=f"{seat_path(token)}/rules",
                               follow=None if ask else follow_data(page, seat_path(token), owes=False, whole_log=False,
                                                                   version_url=f"{seat_path(token)}/version"),
                               default_tz=seat.tz or host_tz,
                               default_lang=i18n.browser_language() if seat.status == "invited" else seat.lang,
                               title=title), status
    ctx = _board_context(page, token, pick, whole_log=whole_log)
    highlight = set(highlight) | pick_highlight(pick)
    return render_template(template, message=message, title=title, done=_done_text(page.view, page.done),
                           done_said=done_lines(page.view, page.done_events) if page.done else None,
                           highlight=highlight, confirm=confirm, talk_text=talk_text, plan_text=plan_text,
                           **ctx), status


@bp.get("/s/<token>")
def seat(token: str):
    return _seat_page(token, done=request.args.get("done", type=db_int), pick=request.args.get("pick"),
                      whole_log=request.args.get("log") == "all")


def _done_text(view: dict, made: list[str]) -> str | None:
    """"Done: take + swap B2" after a Confirm: the seat's decision that produced `?done=<version>`
    (from the move log, so a made-up `done` shows nothing)."""
    if not made:
        return None
    return _("Done: %(what)s", what=done_words(view, made))  # in the reader's words


@bp.route("/s/<token>/m/<slug>", methods=["GET", "HEAD", "POST"])  # POST: its own token (OWN_TOKEN_ENDPOINTS)
def move(token: str, slug: str):
    """A move link (`?d=<decision>`, issue 15.1; `?v=<version>` in mails of before): GET and HEAD
    show the move with a Confirm form, POST plays it."""
    texts = moves.parse_slug(slug)  # the URL read once, here
    if request.method == "POST":
        return _play(token, slug, texts)
    decision = request.args.get("d") or None
    version = request.args.get("v", type=db_int) if decision is None else None
    if decision is None and version is None:
        raise NotFound(_("This move link is not valid."))
    with transaction() as s:  # one read, one seat lookup: the check and the page see the same version
        page = board.seat_board(s, token)
        seat, game = page.seat, page.game
        g = lookups.load_engine_game(game) if game.state is not None else None
        if g is not None:
            texts = [str(m) for m in moves.parse_moves(g, texts)]  # canonical, in the variant's grammar
        reason = moves.stale_reason(s, game, seat, texts, version, decision=decision, g=g)
    if reason:
        return _render_seat_page(page, token, message=reason)
    # a link of before decision ids that is still good (its seat has not moved since) is confirmed
    # for the decision its seat owes now
    view = page.view
    confirm = {"slug": slug, "texts": texts, "decision": decision or view["decision"],
               "text": describe(view, texts), "game": game.id, "seat": seat.seat}
    return _render_seat_page(page, token, highlight=highlight_cells(texts), confirm=confirm,
                             template="confirm.html")


def _play(token: str, slug: str, texts: list[str]):
    """The POST of a move's form (the Confirm page's, or a move button of the board: the board is
    the confirmation). Its CSRF token is the form's own (`tokens.move_form_token`: bound to this
    link, move and decision; no session), and the answer is a redirect to the board that says what
    was done (`?done=<version>`) and shows what is owed now (issue 15.2)."""
    form = request.form
    decision = form.get("decision") or None
    version = form.get("version", type=db_int) if decision is None else None  # a form of before
    if (decision is None and version is None) or form.get("move") != slug or not form.get("game") \
            or not form.get("seat"):
        abort(400)
    if not tokens.check_move_form_token(token, slug, decision if decision is not None else version,
                                        form.get("csrf_token")):
        raise CSRFError("move form token missing or wrong")
    try:  # the game row is locked for the move: another seat's move at the same moment waits or goes first
        with transaction(write=True) as s:
            played = moves.play(s, token, texts, version, decision=decision, form_game=form.get("game"),
                                form_seat=form.get("seat", type=db_int),
                                via="board" if form.get("via") == "board" else "link")
    except Conflict as exc:
        _acted_anyway(token)
        return _seat_page(token, message=exc.message, status=409)
    return see_other(f"{seat_path(token)}?done={played.game.version}")


@bp.post("/s/<token>/plan")
def plan(token: str):
    """The whole-turn form of the board: the same plans as a reply mail (engine.plans: refused as a
    whole, or played up to a move that depends on a card the plan turned up)."""
    form = request.form
    version = form.get("version", type=db_int)
    if version is None or not form.get("game") or form.get("seat", type=db_int) is None:
        abort(400)
    try:
        with transaction(write=True) as s:
            played = moves.play_plan(s, token, form.get("plan", ""), version, form_game=form.get("game"),
                                        form_seat=form.get("seat", type=db_int))
    except Conflict as exc:  # the typed plan stays in its field, to be corrected
        return _seat_page(token, message=exc.message, status=409, plan_text=form.get("plan", ""))
    except Invalid as exc:
        return _seat_page(token, message=exc.message, status=400, plan_text=form.get("plan", ""))
    if played.stopped:  # played up to a move that depends on a card the plan turned up (issue 20.3)
        flash(_("Done: %(what)s", what=in_words_of(", ".join(played.moves), i18n.current())) + " " + played.stopped)
    else:
        flash(_("Done: %(what)s", what=in_words_of(played.plan_text, i18n.current())))
    return see_other(seat_path(token))


def _acted_anyway(token: str) -> None:
    """A player's POST that changed nothing (e.g. a used-up link) still shows they are there: the
    computer stops playing for them (its own transaction; the move's was rolled back)."""
    with transaction(write=True) as s:
        seat, game = lookups.seat_by_token(s, token)
        if game.status == "active":
            clock_service.player_acted(s, game, seat)


@bp.post("/s/<token>/talk")
def talk_write(token: str):
    """The board's table-talk form (issue 19): a refused message comes back in the form, with why."""
    text = request.form.get("text", "")
    try:
        with transaction(write=True) as s:
            talk.write(s, token, text)
    except Invalid as exc:
        return _seat_page(token, message=exc.message, status=400, talk_text=text)
    flash(_("Your message is on the table."))
    return see_other(seat_path(token) + "#talk")


@bp.post("/s/<token>/talk/<int:message_id>/hide")
def talk_hide(token: str, message_id: int):
    """The host hides a message: its text is no longer shown on any page or in any later mail."""
    if message_id > INT32:
        raise NotFound(_("There is no such message in this game."))
    with transaction(write=True) as s:
        talk.hide(s, token, message_id)
    flash(_("The message is hidden."))
    return see_other(seat_path(token) + "#talk")


@bp.post("/s/<token>/vacation")
def vacation(token: str):
    """The board's vacation form: pause my deadlines for some days (up to 14 per game)."""
    days = request.form.get("days", type=db_int)
    if days is None:
        raise Invalid(_("Give the number of days (1 to 14)."))
    with transaction(write=True) as s:
        _until, extended = settings.start_vacation(s, token, days, seen=request.form.get("seen"))
    if extended:  # added to the vacation that runs (issue 28.7)
        flash(_("Your vacation is %(n)s days longer.", n=days))
    else:
        flash(_("Enjoy your break: your deadlines are paused for %(n)s days.", n=days))
    return see_other(seat_path(token))


@bp.post("/s/<token>/vacation/end")
def vacation_end(token: str):
    with transaction(write=True) as s:
        settings.stop_vacation(s, token)
    flash(_("Welcome back: your deadlines run again."))
    return see_other(seat_path(token))


@bp.post("/s/<token>/play-now")
def play_now(token: str):
    """The host's "play for them now" (policy `wait`): the computer decides for that player."""
    target = request.form.get("seat", type=db_int)
    if target is None:
        raise Invalid(_("Choose a player."))
    with transaction(write=True) as s:
        name = settings.host_play_now(s, token, target)
    flash(_("The computer will make %(name)s's decision within a minute.", name=name))
    return see_other(seat_path(token))


@bp.post("/s/<token>/accept")
def accept(token: str):
    tz = (request.form.get("tz") or "").strip() or None
    lang = i18n.known(request.form["lang"]) if request.form.get("lang") else None
    with transaction(write=True) as s:
        _seat, game, already = games.accept(s, token, tz=tz, lang=lang)
    i18n.use_seat(_seat.lang)
    if already:
        flash(_("You already accepted this invitation."))
    else:
        flash(_("You are in! The cards are dealt as soon as everybody has answered.")
              if game.status == "inviting" else _("You are in!"))
    return see_other(seat_path(token))


@bp.get("/s/<token>/decline")
def decline_confirm(token: str):
    """The invitation page asking "Decline? [Decline] [Back]" (issue 28.7): the accept page's Decline
    is a link here; only the POST of this step declines."""
    return _seat_page(token, ask="decline")


@bp.post("/s/<token>/decline")
def decline(token: str):
    with transaction(write=True) as s:
        games.decline(s, token)
    flash(_("You declined the invitation. The host has been told."))
    return see_other(seat_path(token))


@bp.post("/s/<token>/computer")
def computer_seat(token: str):
    """The host lets the computer play a seat whose player declined (issue 18)."""
    position = request.form.get("position", type=db_int)
    if position is None:
        raise Invalid(_("Choose a seat."))
    with transaction(write=True) as s:
        row = games.computer_takes_seat(s, token, position, request.form.get("level", ""))
    flash(_("%(name)s plays this seat.", name=row.name))
    return see_other(seat_path(token))


@bp.get("/s/<token>/cancel")
def cancel_confirm(token: str):
    """The host's "Cancel the game? [Cancel the game] [Back]" (issue 28.7); the POST cancels."""
    return _seat_page(token, ask="cancel")


@bp.post("/s/<token>/cancel")
def cancel(token: str):
    with transaction(write=True) as s:
        games.cancel(s, token)
    flash(_("The game is cancelled; the players have been told."))
    return see_other(seat_path(token))


@bp.post("/s/<token>/rotate")
def rotate(token: str):
    with transaction(write=True) as s:
        _seat, new = settings.rotate_token(s, token)
    flash(_("Your link was replaced; old links and mails no longer work. Bookmark this page."))
    return see_other(seat_path(new))


@bp.post("/s/<token>/rematch")
def rematch(token: str):
    with transaction(write=True) as s:
        _game, new, already = games.rematch(s, token)
    if already:
        flash(_("You are in the rematch that was already started."))
    elif _game.status == "active":  # only computers to invite: dealt at once, no invitation went out
        flash(_("Rematch! The cards are dealt."))
    else:
        flash(_("Rematch! Invitations are on their way."))
    return see_other(seat_path(new))


@bp.get("/watch/<game_id>/<token>")
def watch(game_id: str, token: str):
    if not GAME_ID.fullmatch(game_id):  # never a NUL or other odd text into a query
        raise NotFound(_("This spectator link is not valid."))
    whole_log = request.args.get("log") == "all"
    with transaction() as s:
        page = board.watch_board(s, game_id, token, whole_log=whole_log)
    if page is None:
        raise NotFound(_("This spectator link is not valid."))
    title = i18n.game_title([r.name for r in page.seats])  # a spectator's pages follow the browser
    if page.view is None:
        return render_template("invite.html", game=page.game, seat=None, seats=page.seats, token=None,
                               message=None, title=title, terms=terms_of(page.game),
                               rules_url=f"{watch_path(page.game.id, page.game.spectator_salt)}/rules")
    return render_template("board.html", message=None, highlight=set(), confirm=None, title=title,
                           **_board_context(page, None, whole_log=whole_log))
