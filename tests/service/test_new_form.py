"""/new per variant (issue 15.7): each variant's own options with their defaults in words, no
internal ids; the POST validates and uses only the chosen variant's fieldset; the time-zone list is
current IANA names only, and any valid zone is still accepted."""

from __future__ import annotations

import re

import pytest

import engine
from service.clock.zones import zone_choices, zone_groups
from service.web.forms import CHOICE_LABELS, option_field_name
from tests.service import helpers as h

# every internal choice id of every variant: none may be shown as a default
IDS = {c for v in engine.options.VARIANT_OPTIONS for _d, allowed in engine.option_table(v).values()
       if isinstance(allowed, tuple) for c in allowed}


def fieldset(html: str, variant: str) -> str:
    start = html.index(f'<fieldset class="options" data-variant="{variant}"')
    return html[start:html.index("</fieldset>", start)]


def defaults_shown(html: str) -> list[str]:
    return re.findall(r"<span class=\"muted\" data-default>\(?default: ([^<)]*)\)?</span>", html)


def test_new_shows_each_variants_options_with_defaults_in_words(client):
    page = client.get("/new")
    assert page.status_code == 200
    classic, action = fieldset(page.text, "classic"), fieldset(page.text, "action")
    assert "Options for Classic SKYJO" in classic and "Options for SKYJO Action" in action
    shown = defaults_shown(page.text)
    assert shown and not IDS & {s.strip() for s in shown}, shown
    assert "extra_reveal" not in "".join(shown) and "default: extra_reveal" not in page.text
    # C5 start tiebreak and C8 column removal are classic options only; A11's tiebreak default differs (C12)
    assert 'name="opt_start_tiebreak"' in classic and "start_tiebreak" not in action
    assert 'name="opt_column_removal"' in classic and "column_removal" not in action
    assert "default: one more round among the tied" in classic
    assert "default: most rounds won" in action and "default: one more round among the tied" not in action
    assert "default: tied players reveal one more card" in classic
    assert 'id="action_opt_target_score"' in action and 'value="100"' in action
    # without JavaScript both fieldsets are there and say which counts; ?variant= preselects
    assert "only those of the variant you choose count" in page.text
    assert page.text.index('data-variant="classic"') < page.text.index('data-variant="action"')
    chosen = client.get("/new?variant=action").text
    assert '<option selected value="action">' in chosen
    assert chosen.index('data-variant="action"') < chosen.index('data-variant="classic"')
    assert '<option selected value="classic">' in client.get("/new?variant=nonsense").text


def _post(client, variant: str, **fields):
    return h.new_game(client, extra={"variant": variant, **fields})


def test_new_action_game_takes_the_action_fieldset_and_its_defaults_A11(app, client):
    # the classic fieldset holds nonsense: it is not the chosen variant's, so it does not count
    status, _ = _post(client, "action", opt_round_starter="nonsense", opt_target_score="0")
    assert status == 303
    game = h.only_game(app)
    assert game.variant == "action"
    assert game.options["final_tiebreak"] == "most_rounds_won"  # A11's default, from the action fieldset
    assert game.options["target_score"] == 1
    assert "start_tiebreak" not in game.options and "column_removal" not in game.options


def test_new_action_game_validates_the_action_fieldset(client):
    status, body = _post(client, "action", **{option_field_name("action", "target_score"): "0"})
    assert status == 400 and "Number must be between 1 and 10000" in body
    status, body = _post(client, "action", **{option_field_name("action", "final_tiebreak"): "nonsense"})
    assert status == 400 and "Not a valid choice" in body


def test_new_classic_game_ignores_the_action_fieldset(app, client):
    status, _ = _post(client, "classic", **{option_field_name("action", "target_score"): "0",
                                            option_field_name("action", "final_tiebreak"): "nonsense"})
    assert status == 303
    game = h.only_game(app)
    assert game.variant == "classic" and game.options["start_tiebreak"] == "extra_reveal"


def test_new_action_options_changed_from_their_defaults_are_kept(app, client):
    data = {"csrf_token": h.csrf_of(client.get("/new").text), "host_name": "Ann", "host_email": "ann@example.com",
            "players-0-name": "Bo", "players-0-email": "bo@example.com", "variant": "action",
            "decision_hours": "48", **h.option_form_data(target=7),
            option_field_name("action", "final_tiebreak"): "shared",
            option_field_name("action", "round_starter"): "previous_winner"}
    del data[option_field_name("action", "doubling")]  # an unticked box is not sent
    assert client.post("/new", data=data).status_code == 303
    options = h.only_game(app).options
    assert options["final_tiebreak"] == "shared" and options["round_starter"] == "previous_winner"
    assert options["doubling"] is False and options["target_score"] == 7


def test_every_choice_has_words():
    assert IDS <= set(CHOICE_LABELS)


DEPRECATED = {"US/Pacific", "US/Eastern", "Europe/Kiev", "Asia/Calcutta", "Asia/Saigon", "Asia/Rangoon",
              "America/Buenos_Aires", "America/Indianapolis", "Canada/Eastern", "Brazil/East", "GB", "Etc/UTC",
              "Etc/GMT+5", "Asia/Katmandu", "Pacific/Enderbury", "Australia/ACT", "Universal", "Zulu"}


def test_time_zone_list_is_current_names_only():
    names = zone_choices()
    assert names[0] == "UTC" and len(names) == len(set(names))
    assert not DEPRECATED & set(names)
    assert not [n for n in names if n.startswith(("Etc/", "US/", "SystemV/")) or ("/" not in n and n != "UTC")]
    for wanted in ("Europe/Stockholm", "Africa/Johannesburg", "America/Sao_Paulo", "Europe/Kyiv",
                   "Asia/Kolkata", "America/New_York", "Australia/Sydney"):
        assert wanted in names, wanted
    assert 200 < len(names) < 500  # one list a person can scroll, not ~600 with every alias
    groups = zone_groups()
    regions = [region for region, _zones in groups]
    assert regions[0] == "" and regions[1:] == sorted(regions[1:])
    europe = dict(dict(groups)["Europe"])
    assert europe["Europe/Stockholm"] == "Stockholm (Sweden)"
    labels = [label for _name, label in dict(groups)["America"]]
    assert labels == sorted(labels, key=str.casefold)


def test_new_page_offers_grouped_zones_and_the_browser_zone(client):
    page = client.get("/new").text
    assert '<optgroup label="Europe">' in page and 'value="Europe/Stockholm"' in page
    assert 'data-browser-tz="fallback"' in page and "Intl.DateTimeFormat().resolvedOptions().timeZone" in page
    assert 'value="US/Pacific"' not in page and 'value="Etc/GMT+5"' not in page


@pytest.mark.parametrize(("zone", "status"), [("Asia/Calcutta", 303), ("America/Sao_Paulo", 303),
                                              ("Mars/Olympus_Mons", 400)])
def test_any_valid_zone_is_accepted_on_new(app, client, zone, status):
    """A browser may report an older name (Chromium says Asia/Calcutta): the server accepts any
    valid zone, listed or not."""
    got, _ = h.new_game(client, extra={"host_tz": zone})
    assert got == status
    if status == 303:
        assert h.seats(app, h.only_game(app).id)[0].tz == zone


def test_accept_page_preselects_the_browser_zone_and_keeps_the_chosen_one(app, client):
    h.new_game(client, extra={"host_tz": "Africa/Johannesburg"})
    game = h.only_game(app)
    bo = next(p for m in h.mails(app) if m.to_addr == "bo@example.com" for p in h.links_of(m)
              if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    page = client.get(bo).text
    assert 'data-browser-tz="replace"' in page  # Bo has no zone yet: the browser's beats the host's
    assert '<option value="Africa/Johannesburg" selected>' in page  # without JavaScript: the host's
    assert '<optgroup label="America">' in page
    r = h.post_form(client, bo + "/accept", {"tz": "America/Sao_Paulo"}, page_path=bo)
    assert r.status_code == 303
    assert h.seats(app, game.id)[1].tz == "America/Sao_Paulo"


def test_without_tzdatas_tables_the_list_still_leaves_out_old_style_names(monkeypatch, tmp_path):
    """A system whose zoneinfo has no zone.tab: the zones Python knows, minus Etc/, US/, ... names."""
    from service.clock import zones

    monkeypatch.setattr(zones, "TZPATH", (str(tmp_path),))
    names = {name for name, _label in zones._curated()}
    assert "Europe/Stockholm" in names and "America/Sao_Paulo" in names
    assert not [n for n in names if n.startswith(("Etc/", "US/", "SystemV/", "Canada/", "Brazil/")) or "/" not in n]
