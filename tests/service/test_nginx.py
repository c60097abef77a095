"""deploy/nginx.conf as nginx reads it (issue 31.1): Debian's nginx checks it (`nginx -t`) and runs it
in front of a backend that echoes what it got: plain HTTP is redirected to https, and a request over
TLS reaches the app with the headers PROXY_HOPS=1 reads (X-Forwarded-For, -Proto, -Host). Only the
listening addresses, the certificate's paths and the backend's port are changed for the test."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.service.deploy_files import DEPLOY, wait_for
from tests.service.smtp_fixture import free_port

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
SITE = "skyjo.example.com"


def self_signed(tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, SITE)])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(SITE)]), critical=False)
            .sign(key, hashes.SHA256()))
    (tmp_path / "fullchain.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "privkey.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                             serialization.PrivateFormat.PKCS8,
                                                             serialization.NoEncryption()))


class Echo(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        body = json.dumps({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_nginx_site_redirects_to_https_and_forwards_what_proxy_hops_reads(tmp_path):
    if NGINX is None:
        if IN_CI:
            pytest.fail("Debian's nginx is required under CI=true (.ci/run installs it)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    self_signed(tmp_path)
    backend = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    http_port, https_port = free_port(), free_port()
    site = (DEPLOY / "nginx.conf").read_text()
    site = (site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
            .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
            .replace("/etc/letsencrypt/live/skyjo.example.com/", f"{tmp_path}/")
            .replace("127.0.0.1:8000", f"127.0.0.1:{backend.server_port}"))
    site = "\n".join(line for line in site.splitlines() if "listen [::]" not in line)  # no IPv6 needed here
    (tmp_path / "site.conf").write_text(site)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / d).mkdir()
    (tmp_path / "nginx.conf").write_text(f"""
daemon off;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
{"user root;" if os.geteuid() == 0 else ""}
events {{}}
http {{
    client_body_temp_path {tmp_path}/body; proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi; uwsgi_temp_path {tmp_path}/uwsgi; scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/site.conf;
}}
""")
    conf = ["-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")]
    checked = subprocess.run([NGINX, "-t", *conf], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([NGINX, *conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        def answer(port: int, tls: bool, path: str):
            try:
                conn = (http.client.HTTPSConnection("127.0.0.1", port, timeout=5,
                                                    context=ssl._create_unverified_context()) if tls
                        else http.client.HTTPConnection("127.0.0.1", port, timeout=5))
                conn.request("GET", path, headers={"Host": SITE})
                r = conn.getresponse()
                return r.status, dict(r.getheaders()), r.read()
            except (ConnectionRefusedError, ssl.SSLError):  # not listening yet
                assert proc.poll() is None, proc.communicate()[1][-2000:]
                return None

        status, headers, _body = wait_for("nginx to answer", lambda: answer(http_port, False, "/s/x?y=1"))
        assert status == 301 and headers["Location"] == f"https://{SITE}/s/x?y=1"
        status, _headers, body = answer(https_port, True, "/readyz")
        seen = json.loads(body)
        assert status == 200 and seen["path"] == "/readyz"
        assert (seen["host"], seen["x-forwarded-proto"], seen["x-forwarded-host"]) == (SITE, "https", SITE)
        assert seen["x-forwarded-for"] == "127.0.0.1"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
        backend.shutdown()
