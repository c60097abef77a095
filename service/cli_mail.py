"""Mail operations of `skyjo-pbem` (issue 29): `mail keygen`, `mail check`, `prune`.

Configuration comes from the environment as for the other commands (`service.env_config`; `prune`
builds the app, like `export`). Exit codes: 0 ok, 1 `mail check` found something a receiver needs
missing or wrong, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service import ROOT, env_config


class UsageError(Exception):
    """Bad usage or configuration: printed, exit code 2 (as `service.cli.UsageError`)."""


def _config() -> dict:
    return env_config(str(ROOT / "instance"))


def cmd_keygen(args: argparse.Namespace) -> int:
    from service.mail.signing import dns_record, from_domain, new_private_key, txt_strings

    config = _config()
    selector = (args.selector or config.get("DKIM_SELECTOR") or "").strip()
    if not selector or not selector.replace("-", "").replace(".", "").isalnum():
        raise UsageError("name a selector: --selector NAME (letters, digits, '-'), e.g. skyjo2026")
    domain = from_domain(str(config.get("MAIL_FROM") or ""))
    if not domain or "." not in domain:
        raise UsageError("set MAIL_FROM to the address mail comes from (e.g. SKYJO <skyjo@example.com>): "
                         "the key signs for its domain")
    path = Path(args.key_file or config.get("DKIM_KEY_FILE") or ROOT / "instance" / f"dkim-{selector}.pem")
    if path.exists() and not args.force:
        raise UsageError(f"{path} exists: signing with a new key fails until its record is published; "
                         "choose another --key-file (and selector), or --force")
    key = new_private_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    path.chmod(0o600)
    print(f"wrote the private key to {path} (readable by its owner only; keep it secret)")
    print("publish this TXT record:")
    print(f"{selector}._domainkey.{domain}. TXT {txt_strings(dns_record(key))}")
    print(f"then set DKIM_SELECTOR={selector} DKIM_KEY_FILE={path.resolve()} "
          "and run `skyjo-pbem mail check`")
    return 0


def _resolver(nameserver: str | None):
    import dns.resolver

    if not nameserver:
        return dns.resolver.Resolver()
    host, _sep, port = nameserver.rpartition(":") if nameserver.count(":") == 1 else (nameserver, "", "")
    resolver = dns.resolver.Resolver(configure=False)
    try:
        resolver.nameservers = [host or nameserver]
        resolver.port = int(port) if port else 53
    except ValueError:
        raise UsageError(f"--nameserver {nameserver!r}: give an IP address, optionally with :PORT") from None
    resolver.lifetime = 5.0
    return resolver


def cmd_check(args: argparse.Namespace) -> int:
    from service.mail.dnscheck import check_all
    from service.mail.signing import SigningConfigError, from_domain, read_key

    config = _config()
    if not from_domain(str(config.get("MAIL_FROM") or "")):
        raise UsageError("MAIL_FROM has no domain (e.g. SKYJO <skyjo@example.com>)")
    key = None
    if config.get("DKIM_KEY_FILE"):
        try:
            key = read_key(config["DKIM_KEY_FILE"])
        except SigningConfigError as exc:
            raise UsageError(str(exc)) from None
    try:
        found = check_all(config, _resolver(args.nameserver), key, timeout=args.timeout)
    except ValueError as exc:  # MAIL_URL that SmtpTransport refuses
        raise UsageError(f"MAIL_URL: {exc}") from None
    for f in found:
        print(f"{f.status:<8} {f.check:<9} {f.detail}")
        if f.status != "ok" and f.publish:
            print(f"{'':<18} publish: {f.publish}")
    failing = [f.check for f in found if f.failing]
    if failing:
        print(f"not ready: {', '.join(dict.fromkeys(failing))}", file=sys.stderr)
        return 1
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    from service import create_app
    from service.mail.retention import prune_app

    app = create_app()
    if args.mail_keep_days is not None:
        app.config["MAIL_KEEP_DAYS"] = args.mail_keep_days
    if args.game_keep_days is not None:
        app.config["GAME_KEEP_DAYS"] = args.game_keep_days
    done = prune_app(app)
    print(f"{done} (bodies older than {app.config['MAIL_KEEP_DAYS']:g} days, finished games older than "
          f"{app.config['GAME_KEEP_DAYS']:g} days)")
    return 0


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if value < 0:
        raise argparse.ArgumentTypeError("days cannot be negative")
    return value


def _reporting_usage(func):
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except UsageError as exc:
            print(f"skyjo-pbem {args.command} {args.mail_command}: {exc}", file=sys.stderr)
            return 2

    return run


def add_commands(subparsers) -> None:
    mail = subparsers.add_parser("mail", help="DKIM key and DNS checks for sending to real inboxes")
    sub = mail.add_subparsers(dest="mail_command", required=True)
    keygen = sub.add_parser("keygen", help="write a DKIM key pair and print the TXT record to publish")
    keygen.add_argument("--selector", help="the DKIM selector (default DKIM_SELECTOR)")
    keygen.add_argument("--key-file", help="where to write the private key (default DKIM_KEY_FILE, else "
                        "instance/dkim-SELECTOR.pem)")
    keygen.add_argument("--force", action="store_true", help="overwrite an existing key file")
    keygen.set_defaults(func=_reporting_usage(cmd_keygen))
    check = sub.add_parser("check", help="check SPF, DKIM, DMARC, MX and MAIL_URL; exit 1 if not ready")
    check.add_argument("--nameserver", help="ask this DNS server (IP[:PORT]) instead of the system's, e.g. "
                       "the zone's own server before the records spread")
    check.add_argument("--timeout", type=float, default=10.0, help="seconds for the SMTP server (default 10)")
    check.set_defaults(func=_reporting_usage(cmd_check))

    prune = subparsers.add_parser("prune", help="drop old mail bodies and links, and finished games' mails")
    prune.add_argument("--mail-keep-days", type=_days, help="default MAIL_KEEP_DAYS (14)")
    prune.add_argument("--game-keep-days", type=_days, help="default GAME_KEEP_DAYS (30)")
    prune.set_defaults(func=cmd_prune)
