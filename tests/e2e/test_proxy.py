"""The proxy samples operators copy, served for real in front of uvicorn: a District Noir game
against a bot played through nginx (deploy/nginx/cardtables.conf) in Chromium, its websocket
included; the socket's compression through nginx and Caddy (deploy/caddy/Caddyfile), and the
forwarded headers each sets in place of a client's; the whole nginx file (TLS server included)
as ``nginx -t`` checks it, the Caddyfile as Caddy reads it, and both proxies' idle upstream
connections against uvicorn's keep-alive.

The samples are changed only where a test must, and nowhere else (``render_nginx_site``,
``render_caddyfile``): the ports, and no TLS (no certificate here). Every change must match the
file exactly as often as written below, so a sample edited out of that shape fails here rather
than being tested in part. Debian's nginx and Caddy run as the current user, each with its own
prefix, pid, logs and storage in the test's temporary directory. Without nginx the tests skip,
except under CI (``.ci/run`` installs it), where they fail; the Caddy tests skip without Caddy.
"""

from __future__ import annotations

import http.client
import json
import os
import pwd
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from games.models import Table
from games.services.tables import table_create, table_join
from tests.e2e.pages import sign_in, wait_until
from tests.e2e.tables import elsewhere
from tests.factories import UserFactory
from tests.support.processes import ROOT, free_port, stop, wait_for, wait_for_port

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NGINX_SITE = ROOT / "deploy" / "nginx" / "cardtables.conf"
CADDYFILE = ROOT / "deploy" / "caddy" / "Caddyfile"
WEB_UNIT = ROOT / "deploy" / "systemd" / "cardtables-web@.service"
PROCFILE = ROOT / "Procfile"
UPSTREAM = "127.0.0.1:8000"  # where both samples send everything (cardtables-web@8000)


def _program(name: str, *, required_in_ci: bool) -> str:
    """The path of Debian's ``name`` (in /usr/sbin for nginx, outside a user's PATH)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found:
        return found
    if required_in_ci and os.environ.get("CI"):
        pytest.fail(f"{name} is not installed (.ci/run installs it: apt-get install {name})")
    pytest.skip(f"{name} is not installed (apt-get install {name})")


def _replace_lines(text: str, pattern: str, replacement: str | None, count: int) -> str:
    """Replaces (or, with ``None``, removes) every line whose stripped text matches ``pattern``,
    keeping its indentation; there must be exactly ``count`` of them."""
    regex = re.compile(rf"^(?P<indent>[ \t]*){pattern}[ \t]*$", re.MULTILINE)
    found = len(regex.findall(text))
    assert found == count, f"{count} line(s) matching {pattern!r} expected, {found} found"
    if replacement is None:
        return regex.sub("", text)
    return regex.sub(lambda m: m["indent"] + replacement, text)


# ---- nginx ---------------------------------------------------------------------------------


def render_nginx_site(text: str, *, upstream_port: int, https_port: int, http_port: int) -> str:
    """deploy/nginx/cardtables.conf for this test, and only these changes:

    - the upstream's ``server 127.0.0.1:8000;`` names the test's uvicorn;
    - ``listen 443 ssl http2;`` becomes a plain ``listen 127.0.0.1:<https_port>;`` (no TLS:
      ``$scheme`` is ``http`` there), ``listen 80;`` becomes ``listen 127.0.0.1:<http_port>;``;
    - the IPv6 ``listen [::]:...`` lines and the three ``ssl_`` lines go.
    """
    text = _replace_lines(
        text, re.escape(f"server {UPSTREAM};"), f"server 127.0.0.1:{upstream_port};", 1
    )
    text = _replace_lines(text, r"listen 443 ssl http2;", f"listen 127.0.0.1:{https_port};", 1)
    text = _replace_lines(text, r"listen 80;", f"listen 127.0.0.1:{http_port};", 1)
    text = _replace_lines(text, r"listen \[::\]:(80|443 ssl http2);", None, 2)
    return _replace_lines(text, r"ssl_\w+ [^;]+;", None, 3)


def nginx_main_config(prefix: Path, site: Path) -> str:
    """What Debian's /etc/nginx/nginx.conf puts around a site file, with everything it would
    write kept under ``prefix``. Run by root (CI's containers), nginx's workers would switch
    to ``nobody``; ``user`` keeps them the current user."""
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""{user}worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"};
events {{
    worker_connections 256;
}}
http {{
    sendfile on;
    tcp_nopush on;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix / "access.log"};
    gzip on;
{temp}
    include {site};
}}
"""


@dataclass
class Nginx:
    url: str  # the site (the sample's 443 server, plain HTTP here)
    http_url: str  # the sample's port-80 server
    access_log: Path

    def access_lines(self) -> list[str]:
        return self.access_log.read_text().splitlines() if self.access_log.exists() else []


def start_nginx(upstream: str, prefix: Path) -> tuple[Nginx, subprocess.Popen]:
    nginx = _program("nginx", required_in_ci=True)
    prefix.mkdir(parents=True, exist_ok=True)
    https_port, http_port = free_port(), free_port()
    site = prefix / "cardtables.conf"
    site.write_text(
        render_nginx_site(
            NGINX_SITE.read_text(),
            upstream_port=urlsplit(upstream).port or 80,
            https_port=https_port,
            http_port=http_port,
        )
    )
    config = prefix / "nginx.conf"
    config.write_text(nginx_main_config(prefix, site))
    process = subprocess.Popen(
        [nginx, "-p", str(prefix), "-c", str(config), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_port(https_port, 20, process, "nginx")
    wait_for_port(http_port, 20, process, "nginx")
    return (
        Nginx(
            url=f"http://127.0.0.1:{https_port}",
            http_url=f"http://127.0.0.1:{http_port}",
            access_log=prefix / "access.log",
        ),
        process,
    )


@pytest.fixture
def nginx(asgi_server: str, tmp_path: Path) -> Iterator[Nginx]:
    """Debian's nginx, configured by the sample, in front of the test's uvicorn."""
    proxy, process = start_nginx(asgi_server, tmp_path / "nginx")
    yield proxy
    stop(process)


# ---- Caddy ---------------------------------------------------------------------------------


def render_caddyfile(text: str, *, upstream_port: int, port: int) -> str:
    """deploy/caddy/Caddyfile for this test, and only these changes: the site address
    ``cards.example.org`` becomes ``http://127.0.0.1:<port>`` (plain HTTP, no certificate to
    get), ``reverse_proxy 127.0.0.1:8000`` names the test's uvicorn, and a global options block
    turns Caddy's admin endpoint off (localhost:2019 is one per machine)."""
    text = _replace_lines(text, r"cards\.example\.org \{", f"http://127.0.0.1:{port} {{", 1)
    text = _replace_lines(
        text,
        re.escape(f"reverse_proxy {UPSTREAM} {{"),
        f"reverse_proxy 127.0.0.1:{upstream_port} {{",
        1,
    )
    return "{\n\tadmin off\n}\n\n" + text


def _caddy_environment(home: Path) -> dict[str, str]:
    """Caddy keeps its certificates and autosaved config under these: the test's own."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }


@pytest.fixture
def caddy(asgi_server: str, tmp_path: Path) -> Iterator[str]:
    """Debian's Caddy, configured by the sample, in front of the test's uvicorn."""
    binary = _program("caddy", required_in_ci=False)
    port = free_port()
    config = tmp_path / "Caddyfile"
    config.write_text(
        render_caddyfile(
            CADDYFILE.read_text(), upstream_port=urlsplit(asgi_server).port or 80, port=port
        )
    )
    process = subprocess.Popen(
        [binary, "run", "--config", str(config), "--adapter", "caddyfile"],
        env=_caddy_environment(tmp_path / "caddy"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_port(port, 20, process, "caddy")
    yield f"http://127.0.0.1:{port}"
    stop(process)


# ---- what the tests do ---------------------------------------------------------------------


def _get(url: str, **headers: str) -> http.client.HTTPResponse:
    """One GET, redirects not followed."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request(
        "GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers
    )
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def _a_running_table() -> Table:
    """Made on a thread of its own: once a browser test ran, Playwright keeps an event loop in
    this thread, where the broadcast of the join (async_to_sync) could not run."""
    return elsewhere(_two_players_table)


def _two_players_table() -> Table:
    table = table_create(
        user=UserFactory(username="alice"),
        game="district-noir",
        num_seats=2,
        seconds_per_move=86400,
    )
    table_join(table_id=table.pk, user=UserFactory(username="bob"))
    return table


def _socket_through(base: str, table: Table) -> tuple[str, str]:
    """Opens the table's websocket through ``base`` as a spectator's page would: the
    extensions agreed, and the board the socket's hello brings."""
    from websockets.sync.client import connect

    url = base.replace("http://", "ws://") + f"/ws/t/{table.pk}/"
    with connect(url, origin=base) as ws:
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions", "")
        ws.send(json.dumps({"hello": -1, "digest": ""}))
        return extensions, str(ws.recv(timeout=10))


@pytest.mark.asgi_env({"BOT_MOVE_DELAY_SECONDS": "0"})
def test_a_move_and_the_bots_reply_travel_over_the_websocket_through_nginx(nginx, browser):
    """A player signs in, starts District Noir against a bot from the lobby and moves, all
    through nginx: the page's socket is upgraded by nginx (its log shows the 101), the move
    goes over it (no HTTP post) and the bot's reply comes back on it (polling is off)."""
    UserFactory(username="alice")
    page = browser.new_context().new_page()
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    sign_in(page, nginx.url, "alice")  # a POST with its CSRF token, through the proxy
    page.goto(f"{nginx.url}/")
    page.locator("form.bot-form:has(input[name=game][value=district-noir]) button").click()
    page.wait_for_url(re.compile(r".*/t/\d+/$"))
    table = Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    wait_until(page, "window.tableLive === true")
    board = page.locator("#board-private")
    expect(board).to_have_attribute("data-my-turn", "1")  # after the bot's opening, if it had it

    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    table.refresh_from_db()
    before = table.version
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(before))
    page.locator("#board-form button[name=action]:not([disabled])").first.click()

    # The player's move, answered on the socket, then the bot's reply, pushed on it.
    wait_until(
        page, f"Number(document.getElementById('board-public').dataset.version) >= {before + 2}"
    )
    expect(board).to_have_attribute("data-my-turn", "1")
    table.refresh_from_db()
    assert table.version >= before + 2
    alice = table.seats.get(user__username="alice").position
    moves = list(table.moves.order_by("seq").values_list("position", "by"))
    assert moves[-2] == (alice, "player") and moves[-1] == (1 - alice, "bot"), moves
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version))
    assert posts == [], "the move went over the socket, not an HTTP post"

    origin = f"ws://127.0.0.1:{urlsplit(nginx.url).port}"
    expected = f"{origin}/ws/t/{table.pk}/"
    # The table page's one socket; the lobby's is the player's own small one (their bell).
    assert any(url.startswith(expected) for url in sockets), sockets
    assert all(url.startswith(expected) or url == f"{origin}/ws/me/" for url in sockets), sockets
    page.context.close()  # nginx logs a websocket's request when the socket closes
    upgraded = re.compile(rf'"GET /ws/t/{table.pk}/\?page=\S+ HTTP/1\.1" 101 ')
    wait_for(
        lambda: any(upgraded.search(line) for line in nginx.access_lines()),
        "nginx's log line of the socket's upgrade (101)",
        10,
        every=0.05,
    )
    assert any('"POST /accounts/login/ HTTP/1.1" 302 ' in line for line in nginx.access_lines())


@pytest.mark.asgi_env({"DJANGO_SECURE_SSL_REDIRECT": "1"})
def test_nginx_sets_the_forwarded_scheme_itself_and_redirects_plain_http(nginx, asgi_server):
    """A client's own X-Forwarded-Proto never reaches Django through nginx: the site trusts that
    header (SECURE_PROXY_SSL_HEADER), so a proxy that passed it on would let anyone pass for
    HTTPS. The test's nginx serves plain HTTP, so Django, redirecting to HTTPS here, must
    redirect a request that claims otherwise."""
    direct = _get(f"{asgi_server}/", **{"X-Forwarded-Proto": "https"})
    assert direct.status == 200, "uvicorn believes the header it is given"
    proxied = _get(f"{nginx.url}/", **{"X-Forwarded-Proto": "https"})
    assert proxied.status == 301
    assert proxied.getheader("Location") == f"https://127.0.0.1:{urlsplit(nginx.url).port}/"
    # The port-80 server sends every request but certbot's to HTTPS, path and query kept.
    plain = _get(f"{nginx.http_url}/t/1/?x=1")
    assert plain.status == 301
    assert plain.getheader("Location") == "https://127.0.0.1/t/1/?x=1"


@pytest.mark.asgi_env({"DJANGO_SECURE_SSL_REDIRECT": "1"})
def test_caddy_sets_the_forwarded_scheme_itself(caddy, asgi_server):
    """The same for the Caddyfile: a client's X-Forwarded-Proto is replaced by Caddy's own."""
    assert _get(f"{asgi_server}/", **{"X-Forwarded-Proto": "https"}).status == 200
    proxied = _get(f"{caddy}/", **{"X-Forwarded-Proto": "https"})
    assert proxied.status == 301
    assert proxied.getheader("Location") == f"https://127.0.0.1:{urlsplit(caddy).port}/"


@pytest.mark.parametrize("proxy", ["nginx", "caddy"])
def test_the_websocket_goes_through_the_proxy_compressed(proxy, request):
    """The upgrade and the extensions header pass through unchanged: uvicorn's permessage-deflate
    as the site agrees it (config/websocket.py: a 32 KB window) is what the browser gets."""
    base = request.getfixturevalue(proxy)
    base = base.url if isinstance(base, Nginx) else base
    extensions, board = _socket_through(base, _a_running_table())
    assert "permessage-deflate" in extensions
    assert "server_max_window_bits=15" in extensions
    assert "client_no_context_takeover" in extensions
    assert 'id="board-public"' in board


def test_the_nginx_sample_as_operators_copy_it_passes_nginx_t(tmp_path):
    """The whole file, TLS server included (``listen 443 ssl http2``, the certificate lines,
    the IPv6 listens), as Debian's nginx checks it before a reload (``nginx -t``, which binds
    no port): only the certificate's paths name a self-signed one made here."""
    nginx = _program("nginx", required_in_ci=True)
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("openssl is not installed (apt-get install openssl)")
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=cards.example.org", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    text = NGINX_SITE.read_text()
    live = "/etc/letsencrypt/live/cards.example.org/"
    assert text.count(f"{live}fullchain.pem;") == 1 and text.count(f"{live}privkey.pem;") == 1
    site = tmp_path / "cardtables.conf"
    site.write_text(
        text.replace(f"{live}fullchain.pem", str(cert)).replace(f"{live}privkey.pem", str(key))
    )
    config = tmp_path / "nginx.conf"
    config.write_text(nginx_main_config(tmp_path, site))
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    assert "[warn]" not in done.stderr, done.stderr


def _uvicorn_keep_alive(command: str) -> int:
    found = re.search(r"--timeout-keep-alive (\d+)", command)
    assert found, command
    return int(found[1])


def test_both_proxies_close_idle_upstream_connections_before_uvicorn_does():
    """A proxy that keeps an idle connection to uvicorn longer than uvicorn does may send a
    request down one uvicorn is closing (a 502): each sample's idle timeout is shorter than
    the --timeout-keep-alive of the systemd unit and the Procfile."""
    keep_alive = {
        _uvicorn_keep_alive(WEB_UNIT.read_text()),
        _uvicorn_keep_alive(PROCFILE.read_text()),
    }
    assert len(keep_alive) == 1, keep_alive
    nginx_idle = re.search(r"^\s*keepalive_timeout (\d+)s;", NGINX_SITE.read_text(), re.MULTILINE)
    assert nginx_idle and int(nginx_idle[1]) < min(keep_alive)

    binary = _program("caddy", required_in_ci=False)
    handler = _caddy_reverse_proxy(binary)
    assert handler["transport"]["keep_alive"]["idle_timeout"] / 1e9 < min(keep_alive)


def _caddy_reverse_proxy(binary: str) -> dict:
    """The sample as Caddy reads it: its one reverse_proxy handler (``caddy adapt``)."""
    done = subprocess.run(
        [binary, "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    handlers = re.findall(r'"handler":"reverse_proxy"', done.stdout)
    assert len(handlers) == 1, done.stdout
    config = json.loads(done.stdout)

    def walk(node: object) -> Iterator[dict]:
        if isinstance(node, dict):
            if node.get("handler") == "reverse_proxy":
                yield node
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    return next(walk(config))


def test_the_caddyfile_is_valid_formatted_and_sends_everything_to_uvicorn(tmp_path):
    """``caddy validate`` loads the sample as Caddy would (automatic HTTPS for the site's name
    included); ``caddy adapt`` would warn if it were not in ``caddy fmt``'s layout."""
    binary = _program("caddy", required_in_ci=False)
    done = subprocess.run(
        [binary, "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env=_caddy_environment(tmp_path / "caddy"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr
    assert "not formatted" not in done.stderr
    assert "enabling automatic HTTP->HTTPS redirects" in done.stderr
    handler = _caddy_reverse_proxy(binary)
    assert handler["upstreams"] == [{"dial": UPSTREAM}]
