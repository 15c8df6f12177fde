"""What the load bench prints as it goes, and the section it writes into docs/benchmarks.md."""

from __future__ import annotations

import os
import time

from bench.load.peer import ADAPTERS, PEER_CITED, STORAGES, aim_sentence, aims
from bench.load.stats import WIRE_LIMIT, Stats, percentile, within_limit


def print_phase(phase: dict, stats: Stats, live: bool) -> None:
    print(
        f"\n## {phase['players']} players, {phase['seconds']:.0f} s:"
        f" {phase['actions_per_s']} actions/s, {stats.games_finished} games finished,"
        f" {stats.errors} errors, {stats.refused} refused",
        flush=True,
    )
    print(
        "actions/s by game: "
        + ", ".join(f"{g} {r}" for g, r in phase["actions_per_s_by_game"].items())
    )
    print("| request | count | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|")
    for kind, values in sorted(stats.latency.items()):
        print(row(kind, values))
    for sample in stats.error_samples:
        print("  error:", sample)
    print(
        "CPU ms per action: "
        + ", ".join(f"{role} {ms}" for role, ms in phase["cpu_ms_per_action"].items())
    )
    if live:
        print(deflate_sentence(stats.extensions))
    print_sizes(phase["message_bytes"], live)
    print_integrity(phase)


def print_first_loads(loads: dict[str, dict[str, int]]) -> None:
    print("\n| game | first load: files | bytes on the wire | bytes unpacked | HTML |")
    print("|---|---|---|---|---|")
    for game, load in loads.items():
        print(
            f"| {game} | {load['files']} | {load['wire_bytes']} | {load['raw_bytes']} | "
            f"{load['html_bytes']} |"
        )


def print_pgbench(result: dict, clients: int) -> None:
    """pgbench's rate, and each phase's as a share of it (kept in ``result``)."""
    tps = result["pgbench_tps"]
    print(f"\npgbench, move-shaped transaction, {clients} clients: {tps:.0f} tps")
    for phase in result["phases"]:
        phase["ratio_to_pgbench"] = round(phase["actions_per_s"] / tps, 3) if tps else None
        print(
            f"  {phase['players']} players: {phase['actions_per_s']} actions/s = "
            f"{100 * phase['ratio_to_pgbench']:.1f}% of pgbench"
        )


def row(kind: str, values: list[float]) -> str:
    return (
        f"| {kind} | {len(values)} | {percentile(values, 50):.1f} | "
        f"{percentile(values, 95):.1f} | {percentile(values, 99):.1f} |"
    )


def deflate_sentence(extensions: dict[str, int]) -> str:
    sockets = sum(extensions.values())
    deflate = {k: v for k, v in extensions.items() if "permessage-deflate" in k}
    if not sockets:
        return "websocket: no socket opened"
    if not deflate:
        return f"websocket permessage-deflate: not negotiated (0 of {sockets} sockets)"
    answers = "; ".join(f"`{k}`" for k in deflate)
    return (
        f"websocket permessage-deflate: negotiated on {sum(deflate.values())} of {sockets}"
        f" sockets ({answers})"
    )


def size_cell(figures: dict[str, int] | None, alone: bool = False) -> str:
    """Mean / max, raw → on the wire (and, ``alone``, → compressed on its own)."""
    if not figures:
        return "-"
    cell = (
        f"{figures['raw_mean']:,} / {figures['raw_max']:,} → "
        f"{figures['wire_mean']:,} / {figures['wire_max']:,}"
    )
    if alone:
        cell += f" (alone {figures['alone_mean']:,} / {figures['alone_max']:,})"
    return cell


def verdict(kinds: dict[str, dict[str, int]]) -> str:
    ok = within_limit(kinds)
    return "-" if ok is None else ("yes" if ok else "no")


def print_sizes(messages: dict[str, dict[str, dict[str, int]]], live: bool) -> None:
    how = "socket frames (deflated alone)" if live else "gzip"
    print(
        f"\nbytes per message, mean / max: raw → on the wire; answers: {how}; pushes: socket"
        " frames (deflated alone); polls: gzip"
    )
    print(
        f"| game | move's answer | push | poll answer | ≤ {WIRE_LIMIT:,} B on the wire |"
        "\n|---|---|---|---|---|"
    )
    for game, kinds in messages.items():
        print(
            f"| {game} | {size_cell(kinds.get('answer'), live)}"
            f" | {size_cell(kinds.get('push'), True)} | {size_cell(kinds.get('poll'))}"
            f" | {verdict(kinds)} |"
        )


def markdown(result: dict, command: str) -> str:
    """The run's figures, as the section this bench writes into docs/benchmarks.md."""
    setup, phases = result["setup"], result["phases"]
    before, after = result["load_before"][0], result.get("load_after", (0.0,))[0]
    live = setup["pages"].startswith("live")

    def lat(phase: dict, kind: str) -> str:
        figures = phase["latency_ms"].get(kind)
        if not figures:
            return "-"
        return f"{figures['p50']:.0f} / {figures['p95']:.0f} / {figures['p99']:.0f}"

    act = "action over the socket" if live else "action post"
    lines = [
        "### Latest run (written by `bench/load`: `python -m bench.load`)",
        "",
        f"`{command}` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC:"
        f" {setup['server']}, pages {setup['pages']}, thinking time {setup['think_s']} s,"
        f" games {', '.join(setup.get('games', []))};"
        f" {os.cpu_count()} CPUs, load average {before:.1f} before and {after:.1f} after.",
        "",
        f"| N players | actions/s | District Noir actions/s | {act} p50 / p95 / p99 ms"
        " | push p50 / p95 / p99 ms | page p50 / p95 / p99 ms | web CPU ms per action"
        " | PostgreSQL CPU ms per action | share of pgbench | errors | refused |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in phases:
        cpu = phase["cpu_ms_per_action"]
        share = phase.get("ratio_to_pgbench")
        noir = phase.get("actions_per_s_by_game", {}).get("district-noir", "-")
        lines.append(
            f"| {phase['players']} | {phase['actions_per_s']} | {noir} | {lat(phase, 'act')}"
            f" | {lat(phase, 'push')} | {lat(phase, 'page')} | {cpu.get('web', 0)}"
            f" | {cpu.get('postgres', 0)} | {'-' if share is None else f'{100 * share:.1f}%'}"
            f" | {phase['errors']} | {phase['refused']} |"
        )
    chat = [phase for phase in phases if phase["latency_ms"].get("chat push")]
    if chat:
        lines.append("")
        lines += [
            f"Chat, a line every {setup.get('chat_s')} s from each player, over the socket:"
            f" {phase['players']} players, push to the other seats p50 / p95 / p99"
            f" {lat(phase, 'chat push')} ms ({phase['latency_ms']['chat push']['count']} pushes)."
            for phase in chat
        ]
    lines += ["", f"pgbench, the move-shaped transaction: {result.get('pgbench_tps', 0):.0f} tps."]
    peer = result.get("peer")
    if peer:
        lines += ["", peer_sentence(peer)]
    if live and phases:
        lines += ["", deflate_sentence(phases[-1].get("websocket_extensions", {})) + "."]
    push = "push" if live else "poll answer (whole board)"
    wire = (
        "the socket's frames as received, headers included (permessage-deflate with context"
        " takeover), and in brackets each message deflated alone with the server's window"
        " (the bound without context takeover)"
        if live
        else "gzip, as downloaded"
    )
    lines += [
        "",
        f"Bytes per message, mean / max, raw → on the wire: {wire}. The limit is"
        f" {WIRE_LIMIT:,} B on the wire for a push and a move's answer.",
        "",
        "| game | first load: files | bytes on the wire | bytes unpacked | HTML"
        f" | move's answer | {push} | within {WIRE_LIMIT:,} B |",
        "|---|---|---|---|---|---|---|---|",
    ]
    messages = result.get("bytes", {}).get("message_per_move", {})
    for game, load in result.get("bytes", {}).get("first_load", {}).items():
        kinds = messages.get(game, {})
        lines.append(
            f"| {game} | {load['files']} | {load['wire_bytes']:,} | {load['raw_bytes']:,}"
            f" | {load['html_bytes']:,} | {size_cell(kinds.get('answer'), live)}"
            f" | {size_cell(kinds.get('push' if live else 'poll'), live)} | {verdict(kinds)} |"
        )
    return "\n".join(lines) + "\n"


def peer_sentence(peer: dict) -> str:
    """The report's paragraph on the boardgame.io peer: each storage's rate and our ratio to
    it, and the aims of issue 31.6 met or missed."""
    rates = []
    for storage, name in STORAGES:
        label = {"flatfile": "FlatFile storage"}.get(storage, name)
        if storage in ADAPTERS:
            label += f" ({ADAPTERS[storage]})"
        figures = peer.get(storage, {})
        if figures.get("moves_per_s") is None:
            rates.append(f"{label}: no figures")
            continue
        rates.append(
            f"{label} {figures['moves_per_s']:.0f} moves/s (p95 {figures['p95']} ms),"
            f" ours **{figures['ratio']:.3f}x** of it"
        )
    found = peer.get("aims") or aims(peer)
    caveat = peer.get("setup_caveat")
    act = peer.get("ours_act_ms")
    timing = (
        f" Our act (a move's sending to the mover's answer) p95 {act['p95']} ms; the peer's"
        " latency is a move's sending to the first of its match's two clients getting the"
        " server's update, which boardgame.io sends before its write."
        if act
        else ""
    )
    return (
        f"boardgame.io 0.50.2 (run by `{PEER_CITED}`), District Noir,"
        f" {peer['matches']} matches ({2 * peer['matches']} clients), {peer['seconds']:g} s,"
        f" right after the {peer['after_players']}-player phase; our District Noir rate"
        f" {peer['ours_district_noir_per_s']} moves/s: " + "; ".join(rates) + ". Aims"
        " (issue 31.6, District Noir only, 32 players): "
        + "; ".join(aim_sentence(storage, aim) for storage, aim in found.items())
        + (f"; {caveat}" if caveat else "")
        + "."
        + timing
    )


def print_integrity(phase: dict) -> None:
    figures = phase["integrity"]
    print(
        f"moves accepted {figures['accepted']}, stored {figures['stored']}"
        f" (unanswered {figures['unanswered']}, stored twice {figures['stored_twice']});"
        f" 5xx answers {figures['server_errors']}"
    )
    fault = phase.get("fault")
    if fault:
        print(
            f"fault {fault['kind']} for {fault['seconds']:g} s: longest action"
            f" {fault['longest_action_ms']} ms; sockets closed {fault['socket_closes']};"
            f" handshakes refused {fault['refused_handshakes']}; pages live again"
            f" {fault['pages_live_again']} of {fault['pages']}, after p50"
            f" {fault['live_again_s_p50']} s, at most {fault['live_again_s_max']} s"
        )
