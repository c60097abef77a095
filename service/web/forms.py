"""Web forms (validated here: SQLModel table models do not validate)."""

from __future__ import annotations

from flask import request
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, FieldList, FormField, IntegerField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Email, InputRequired, Length, NumberRange, Optional, ValidationError

import engine
from service.clock.zones import valid_zone
from service.i18n import DEFAULT, LANGUAGES, zone_groups
from service.play.names import has_invisible, lookalike_pairs
from service.render.rules import CHOICE_LABELS, VARIANT_LABELS, default_in_words, option_label

MAX_OTHERS = 7

INT32 = 2**31 - 1


def db_int(text: str) -> int:
    """An integer from a URL or form that fits the database's integer columns (32-bit on
    PostgreSQL); ValueError otherwise, which `request.args.get(name, type=db_int)` turns into None."""
    number = int(text)
    if not -INT32 - 1 <= number <= INT32:
        raise ValueError("out of range")
    return number


def printable(form, field) -> None:
    """Names are shown in pages and mail headers: no control or other invisible characters (NUL,
    line breaks, U+FEFF, U+2800, ...: `play.names`)."""
    if has_invisible(field.data or ""):
        raise ValidationError(_l("Use letters, digits and punctuation only."))


def ascii_mailbox(form, field) -> None:
    """Our mail goes out without SMTPUTF8: an address with letters outside ASCII before the @
    would bounce (an international domain is fine)."""
    local = (field.data or "").rpartition("@")[0]
    if local and not local.isascii():
        raise ValidationError(_l("This address has letters outside A-Z before the @; our mail cannot reach it yet. "
                                 "Please use another address."))


def email_field(label) -> StringField:
    return StringField(label, validators=[Optional(), ascii_mailbox, Email(message=_l("Not a valid email address.")),
                                          Length(max=254)])


# each language in itself (service.i18n.LANGUAGES); an invitee's "" is the host's language
LANGUAGE_CHOICES = [SelectChoice(code, name) for code, name in LANGUAGES.items()]


class PlayerForm(FlaskForm):
    class Meta:
        csrf = False

    name = StringField(_l("Name"), validators=[Optional(), Length(max=40), printable])
    email = email_field(_l("Email"))
    lang = SelectField(_l("Language"), default="", choices=[SelectChoice("", _l("same as mine")), *LANGUAGE_CHOICES],
                       validators=[Optional()])
    # issue 18: a person (invited by email) or the computer at a level (no email; the name is optional)
    kind = SelectField(_l("Who plays"), default="person", choices=[
        SelectChoice("person", _l("Person (email)")), SelectChoice("easy", _l("Computer: easy")),
        SelectChoice("normal", _l("Computer: normal")), SelectChoice("strong", _l("Computer: strong"))])

    def computer_level(self) -> str | None:
        return None if self.kind.data in (None, "", "person") else self.kind.data


def option_field_name(variant: str, name: str) -> str:
    """The form field of option `name` in `variant`'s fieldset: each variant has its own fields (its
    own defaults), so a browser without JavaScript can send both fieldsets and the chosen one counts.
    Classic keeps the names it always had."""
    return f"opt_{name}" if variant == "classic" else f"{variant}_opt_{name}"


def option_fields(variant: str = "classic") -> dict:
    """The fields of `variant`'s options that a form can set (the deck tables of SKYJO Action have
    none: they keep their defaults), each with the variant's own default."""
    fields = {}
    for name, (default, allowed) in engine.option_table(variant).items():
        label, key = option_label(variant, name), option_field_name(variant, name)
        if allowed is bool:
            fields[key] = BooleanField(label, default=default)
        elif allowed is int:
            fields[key] = IntegerField(label, default=default, validators=[InputRequired(), NumberRange(1, 10_000)])
        elif isinstance(allowed, tuple):
            choices = [SelectChoice(c, CHOICE_LABELS.get(c, c)) for c in allowed]
            fields[key] = SelectField(label, default=default, choices=choices)
    return fields


class _NewGameBase(FlaskForm):
    host_name = StringField(_l("Your name"), validators=[InputRequired(), Length(min=1, max=40), printable])
    host_email = StringField(_l("Your email"), validators=[InputRequired(), ascii_mailbox, Email(
        message=_l("Not a valid email address.")), Length(max=254)])
    host_lang = SelectField(_l("Language"), default=DEFAULT, choices=LANGUAGE_CHOICES)
    players = FieldList(FormField(PlayerForm), min_entries=MAX_OTHERS, max_entries=MAX_OTHERS)
    variant = SelectField(_l("Variant"), default="classic",
                          choices=[SelectChoice(v, VARIANT_LABELS.get(v, v)) for v in engine.options.VARIANT_OPTIONS])
    decision_hours = IntegerField(_l("Time per decision (hours)"), default=48, validators=[
        InputRequired(message=_l("Give the time per decision in hours.")),
        NumberRange(1, 24 * 14, message=_l("From 1 hour to 14 days (336 hours)."))])
    reminder_hours = StringField(_l("Reminders (hours before the deadline, comma-separated)"), default="24, 4",
                                 validators=[Optional(), Length(max=60)])
    timeout_policy = SelectField(_l("When time runs out"), default="bot", choices=[
        SelectChoice("bot", _l("the computer makes the decision and the game goes on")),
        SelectChoice("wait", _l("wait (reminders only; the host can let the computer play)"))])
    host_tz = SelectField(_l("Your time zone"), default="UTC", validate_choice=False, choices=lambda: [  # any valid zone
        # in the reader's language, per form (issue 28.3)
        SelectChoice(name, label, optgroup=region or None) for region, zones in zone_groups() for name, label in zones])

    def validate_host_tz(self, field):
        if not field.data or not valid_zone(field.data):
            raise ValidationError(_l("Unknown time zone."))

    def validate_reminder_hours(self, field):
        try:
            hours = self.reminders()
        except ValueError:
            raise ValidationError(_l("Write hours as numbers separated by commas, e.g. 24, 4.")) from None
        if len(hours) > 6:
            raise ValidationError(_l("At most 6 reminders."))
        limit = self.decision_hours.data or 0
        if any(h <= 0 or (limit and h >= limit) for h in hours):
            raise ValidationError(_l("Each reminder must be more than 0 hours and less than the time per "
                                     "decision before the deadline."))

    def reminders(self) -> list[float]:
        """The reminder offsets in hours (descending); ValueError when not numbers."""
        raw = (self.reminder_hours.data or "").replace(";", ",")
        hours = [float(p) for p in raw.split(",") if p.strip()]
        if any(h != h or h in (float("inf"), float("-inf")) for h in hours):
            raise ValueError("not a number")
        return sorted({int(h) if h == int(h) else h for h in hours}, reverse=True)

    def validate_players(self, field):
        people = [p for p in field.entries if p.form.computer_level() is None]
        entries = [(p.form.name.data or "").strip() for p in people]
        emails = [(p.form.email.data or "").strip() for p in people]
        for p, n, e in zip(people, entries, emails, strict=True):
            if bool(n) != bool(e):
                (p.form.email if n else p.form.name).errors.append(
                    _l("Give both a name and an email, or leave both empty."))
                raise ValidationError(_l("Each player needs a name and an email."))
        others = [e.lower() for e in emails if e]
        if not others and len(people) == len(field.entries):
            raise ValidationError(_l("Invite at least one other player."))
        everyone = [(self.host_email.data or "").strip().lower()] + others
        if len(set(everyone)) != len(everyone):
            for p, e in zip(people, emails, strict=True):
                if e and (everyone.count(e.lower()) > 1):
                    p.form.email.errors.append(_l("This email is used twice."))
            raise ValidationError(_l("Every player needs a different email address."))
        if lookalike_pairs([self.host_name.data or "", *(n for n in entries if n)]):  # also Cyrillic "Аnn"
            raise ValidationError(_l("Every player needs a different name."))

    def others(self) -> list[tuple[str, str, str | None]]:
        """(name, email, computer level or None) of each filled row, in order: a person's row with a
        name, and every computer row (its email is ignored, its name may be empty)."""
        return [((p.form.name.data or "").strip(), (p.form.email.data or "").strip(), p.form.computer_level())
                for p in self.players.entries
                if p.form.computer_level() is not None or (p.form.name.data or "").strip()]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        wanted = request.args.get("variant")  # /new?variant=action: that variant is chosen (no JavaScript)
        if not self.is_submitted() and wanted in engine.options.VARIANT_OPTIONS:
            self.variant.data = wanted

    def validate(self, extra_validators=None) -> bool:
        """Only the chosen variant's fieldset counts: the other one's fields (sent by a browser
        that shows both) are neither checked nor used."""
        super().validate(extra_validators)
        chosen = self.variant.data
        for variant in engine.options.VARIANT_OPTIONS:
            if variant != chosen:
                for field in self._variant_fields(variant):
                    field.errors = []
        return not self.errors

    def _variant_fields(self, variant: str) -> list:
        keys = (option_field_name(variant, n) for n in engine.option_table(variant))
        return [getattr(self, k) for k in keys if hasattr(self, k)]

    def languages(self) -> list[str]:
        """Each other player's language, in `others()`' order (the host's where none was chosen)."""
        host = self.host_lang.data or DEFAULT
        return [p.form.lang.data or host for p in self.players.entries
                if p.form.computer_level() is not None or (p.form.name.data or "").strip()]

    def options(self) -> dict:
        """The options of the chosen variant, from its own fieldset."""
        variant = self.variant.data or "classic"
        return {name: getattr(self, option_field_name(variant, name)).data for name in engine.option_table(variant)
                if hasattr(self, option_field_name(variant, name))}

    def fieldsets(self) -> list[dict]:
        """One fieldset per variant, the chosen one first: its label and, per option, the field
        and its default in words."""
        chosen = self.variant.data or "classic"
        out = []
        for variant in sorted(engine.options.VARIANT_OPTIONS, key=lambda v: v != chosen):
            table = engine.option_table(variant)
            fields = [(getattr(self, option_field_name(variant, n)), default_in_words(*table[n])) for n in table
                      if hasattr(self, option_field_name(variant, n))]
            out.append({"variant": variant, "label": VARIANT_LABELS.get(variant, variant), "fields": fields,
                        "chosen": variant == chosen})
        return out


NewGameForm = type("NewGameForm", (_NewGameBase,),
                   {k: f for v in engine.options.VARIANT_OPTIONS for k, f in option_fields(v).items()})


class LinksForm(FlaskForm):
    email = StringField(_l("Your email"), validators=[InputRequired(), printable, Email(
        message=_l("Not a valid email address.")), Length(max=254)])
