"""The load bench's boardgame.io peer (``bench/load/peer.py``), without running it: its line
parsed, the aims of issue 31.6 met or missed, and what the report says of its three
storages. (Running it takes node, npm and minutes: ``python -m bench.load --peer``.)"""

from __future__ import annotations

from bench.load.peer import (
    PEER_PACKAGES,
    aim_sentence,
    aims,
    parse_peer_line,
    peer_postgres_url,
    setup_caveat,
)
from bench.load.report import markdown, peer_sentence

LINE = (
    "boardgame.io 0.50.2: 16 matches, 10.0 s: 349 moves/s, p50 40.1 ms, p95 70.0 ms,"
    " p99 n/a ms, games finished 12, errors 0"
)


def peer(flatfile: float | None, postgres: float | None, memory: float | None) -> dict:
    """A run's peer figures with these ratios (None: that storage gave no figures)."""
    figures: dict = {
        "after_players": 32,
        "matches": 16,
        "seconds": 40,
        "ours_district_noir_per_s": 100.0,
        "ours_act_ms": {"p50": 90.0, "p95": 160.0, "p99": 200.0},
    }
    for storage, ratio in (("flatfile", flatfile), ("postgres", postgres), ("memory", memory)):
        if ratio is None:
            figures[storage] = {"storage": storage, "moves_per_s": None, "ratio": None}
        else:
            rate = 100.0 / ratio
            figures[storage] = {
                "storage": storage,
                "moves_per_s": rate,
                "p95": 20.0,
                "ratio": ratio,
            }
    return figures


def test_the_peer_line_is_parsed():
    figures = parse_peer_line("postgres", "bgio server on 127.0.0.1:8790\n" + LINE + "\n")
    assert figures["line"] == LINE
    assert figures["storage"] == "postgres"
    assert (figures["matches"], figures["moves_per_s"], figures["p95"]) == (16, 349.0, 70.0)
    assert figures["p99"] is None  # "n/a"
    assert (figures["games_finished"], figures["errors"]) == (12, 0)


def test_no_line_keeps_the_last_lines_of_what_it_said():
    figures = parse_peer_line("postgres", "a\nb\nc\nSequelizeConnectionError: refused\n")
    assert figures["moves_per_s"] is None
    assert figures["out"] == ["b", "c", "SequelizeConnectionError: refused"]


def test_the_peer_stores_on_postgresql_through_bgio_postgres():
    assert PEER_PACKAGES["bgio-postgres"] == "1.0.16"
    url = peer_postgres_url("peer_bgio_1234")
    assert url.startswith("postgresql://") and url.endswith("/peer_bgio_1234")


def test_each_aim_is_met_or_missed():
    found = aims(peer(flatfile=0.3, postgres=0.4, memory=0.05))
    assert found["flatfile"] == {"share": 0.25, "ratio": 0.3, "met": True}
    assert found["postgres"] == {"share": 0.5, "ratio": 0.4, "met": False}
    assert aim_sentence("postgres", found["postgres"]) == (
        "at least 0.5x the PostgreSQL rate: missed (0.400x)"
    )
    assert aims(peer(None, None, None))["postgres"]["met"] is None


def test_a_run_other_than_the_aims_setup_says_so():
    assert setup_caveat(32, 16, ["district-noir"]) == ""
    assert "not the aims' setup" in setup_caveat(32, 16, ["district-noir", "gnav"])
    assert "not the aims' setup" in setup_caveat(8, 16, ["district-noir"])


def test_the_report_names_the_three_storages_and_both_aims():
    text = peer_sentence(peer(flatfile=0.3, postgres=0.6, memory=0.05))
    assert "FlatFile storage 333 moves/s (p95 20.0 ms), ours **0.300x** of it" in text
    assert "PostgreSQL (bgio-postgres 1.0.16) 167 moves/s" in text
    assert "ours **0.600x** of it" in text
    assert "in memory 2000 moves/s" in text
    assert "at least 0.25x the FlatFile rate: met (0.300x)" in text
    assert "at least 0.5x the PostgreSQL rate: met (0.600x)" in text
    assert "mover" in text  # what both latencies time
    # It goes into docs/benchmarks.md, which cites only the repository's own files:
    # the peer's own folder (peer-bgio, outside the repository) is not named: test_docs' rule
    assert "peer-bgio" not in text and "`bench/load/peer.py`" in text


def test_the_report_of_a_run_whose_peer_gave_no_figures():
    result = {
        "setup": {"server": "uvicorn x2", "pages": "live (websocket)", "think_s": 0.0},
        "phases": [],
        "load_before": (1.0, 1.0, 1.0),
        "peer": peer(flatfile=0.2, postgres=None, memory=None),
    }
    text = markdown(result, ".venv/bin/python -m bench.load --peer")
    assert "PostgreSQL (bgio-postgres 1.0.16): no figures" in text
    assert "at least 0.25x the FlatFile rate: missed (0.200x)" in text
    assert "at least 0.5x the PostgreSQL rate: no figures" in text
