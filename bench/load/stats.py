"""What a phase of the load bench counts: each player's latencies, answers, errors and the
bytes of each message, merged into one ``Stats`` per phase, and the figures drawn from it."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import httpx

from bench.load.wire import deflated_size, frame_header

# Issue 17: a push, and a move's answer, stay within 5 KB on the wire.
WIRE_LIMIT = 5 * 1024


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter = field(default_factory=Counter)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    actions: int = 0
    actions_by_game: Counter = field(default_factory=Counter)
    refused: int = 0
    games_finished: int = 0
    # (game, "answer" | "push" | "poll") -> (raw bytes, bytes on the wire, bytes compressed
    # alone) of each message; for HTTP answers the last two are the same (gzip)
    sizes: dict[tuple[str, str], list[tuple[int, int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # the server's Sec-WebSocket-Extensions answer ("" for none) -> sockets
    extensions: Counter = field(default_factory=Counter)
    # moves sent over a socket that closed before their answer came (their fate unknown here:
    # the moves stored tell)
    unanswered: int = 0
    # how the server closed a live page's socket (its close code, or "dropped") -> sockets;
    # and the HTTP status of a refused websocket handshake -> handshakes
    closes: Counter = field(default_factory=Counter)
    refused_handshakes: Counter = field(default_factory=Counter)
    # per page: the moments (time.monotonic) it received a push over its socket
    pushes_at: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)

    def socket_message(
        self, game: str, kind: str, text: str, wire: int | None, window_bits: int | None
    ) -> None:
        """A message received on the socket: its raw size, its bytes on the wire (frames
        counted as they came, ``None`` if not counted) and deflated on its own (``window_bits``:
        the server's window if permessage-deflate was negotiated, else None: not compressed)."""
        raw = text.encode()
        alone = len(raw) if window_bits is None else deflated_size(raw, window_bits)
        alone += frame_header(alone)
        self.sizes[(game, kind)].append((len(raw), alone if wire is None else wire, alone))

    def http_answer(self, game: str, kind: str, response: httpx.Response) -> None:
        """An HTTP answer: its unpacked size, and what came over the wire (gzip, if any)."""
        wire = response.num_bytes_downloaded
        self.sizes[(game, kind)].append((len(response.content), wire, wire))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def merge(stats: list[Stats]) -> Stats:
    total = Stats()
    for s in stats:
        for kind, values in s.latency.items():
            total.latency[kind] += values
        total.statuses.update(s.statuses)
        total.errors += s.errors
        total.error_samples += s.error_samples[: max(0, 10 - len(total.error_samples))]
        total.actions += s.actions
        total.actions_by_game.update(s.actions_by_game)
        total.refused += s.refused
        total.games_finished += s.games_finished
        for key, sizes in s.sizes.items():
            total.sizes[key] += sizes
        total.extensions.update(s.extensions)
        total.unanswered += s.unanswered
        total.closes.update(s.closes)
        total.refused_handshakes.update(s.refused_handshakes)
        for page, moments in s.pushes_at.items():
            total.pushes_at[page] += moments
    return total


def size_figures(stats: Stats) -> dict[str, dict[str, dict[str, int]]]:
    """Per game and kind of message: count, mean and maximum, raw, on the wire and compressed
    alone (a socket message deflated on its own: the bound without context takeover)."""
    figures: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for (game, kind), sizes in sorted(stats.sizes.items()):
        figures[game][kind] = {"count": len(sizes)}
        for i, name in enumerate(("raw", "wire", "alone")):
            values = [size[i] for size in sizes]
            figures[game][kind][f"{name}_mean"] = round(sum(values) / len(values))
            figures[game][kind][f"{name}_max"] = max(values)
    return dict(figures)


def within_limit(kinds: dict[str, dict[str, int]]) -> bool | None:
    """Whether every push and every move's answer stayed within the limit on the wire: the
    frames as the socket sent them (with context takeover, as browsers agree it). Each message
    deflated alone is shown beside, for a client that would refuse context takeover."""
    maxima = [kinds[k]["wire_max"] for k in ("answer", "push") if k in kinds]
    return None if not maxima else max(maxima) <= WIRE_LIMIT


def phase_figures(stats: Stats, players: int, elapsed: float) -> dict:
    """A phase's figures as the report and ``--json`` have them (the stack's CPU and the moves
    stored are added by the run)."""
    return {
        "players": players,
        "seconds": round(elapsed, 1),
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1),
        "actions_per_s_by_game": {
            game: round(count / elapsed, 1) for game, count in sorted(stats.actions_by_game.items())
        },
        "requests_per_s": round(sum(map(len, stats.latency.values())) / elapsed, 1),
        "games_finished": stats.games_finished,
        "refused": stats.refused,
        "errors": stats.errors,
        "error_samples": stats.error_samples,
        "statuses": dict(stats.statuses),
        "websocket_extensions": dict(stats.extensions),
        "latency_ms": {
            kind: {
                "count": len(v),
                "p50": round(percentile(v, 50), 1),
                "p95": round(percentile(v, 95), 1),
                "p99": round(percentile(v, 99), 1),
            }
            for kind, v in sorted(stats.latency.items())
        },
        "message_bytes": size_figures(stats),
    }
