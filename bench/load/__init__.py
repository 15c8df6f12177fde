"""Load bench: N signed-in players play whole games as their browsers would.

It starts a production-style stack of its own (a fresh PostgreSQL database, a
private Redis, uvicorn with two worker processes (or daphne, ``--server``), a
Celery worker; DEBUG off, the manifest static files that whitenoise serves),
signs every player in through the sign-in form, and then, for each N, seats N
players at tables of every game (or of ``--games`` only) and lets them play random
legal moves for a bounded time, as a live page does (``--live``, the default):

- each player's page loads the table, opens the table's websocket (``?page=``) and says
  which board it shows (``{"hello": version, "digest": private digest}``); every change
  arrives pushed, as the parts of the board that changed for this page (``#board-public``,
  and ``#board-private`` only when this seat's own part changed); a safety poll and a
  ``ping`` every 30 s;
- a player whose turn it is clicks one of the private part's action buttons: the move goes
  over the open socket (``{"action": <the button's value>, "version": <the version>}``), and
  its answer comes back on that socket only (``#board-message``, empty or a refusal's
  reason, then the changed parts).

With ``--no-live`` the pages poll ``/t/<id>/?v=<version>`` every ``--poll`` seconds
instead and post their moves over HTTP (the fallback when the websocket is down: the
answer is the refusal's reason, or nothing, and the whole board). ``--think`` adds a
player's thinking time before each move.

It prints actions per second, latency percentiles per kind of request ("act": from a
move's sending to its answer, over the socket or the POST; "push": from a move's sending
to another seat's socket receiving the new version), the errors (5xx and failed
connections), the CPU milliseconds per action of each part of the stack, whether the
websocket negotiated permessage-deflate, the bytes of a table page's first load and of a
push and a move's answer (raw, and on the wire: gzip for HTTP answers; for socket
messages each one deflated on its own, an upper bound of what permessage-deflate sends),
against the 5 KB limit of issue 17, and pgbench's rate for a move-shaped transaction on
the same PostgreSQL (the machine's ceiling for moves). ``--peer`` also runs the
boardgame.io peer (``../shared/bench/peer-bgio/``, District Noir, in FlatFile storage, on
PostgreSQL in a fresh database of the same server, and in memory) right after the phase
nearest its client count, and prints our District Noir rate as a share of each and the
aims of issue 31.6 (at least 0.25x FlatFile, 0.5x PostgreSQL) met or missed; both sides
timed to the mover seeing the new state.

    .venv/bin/python -m bench.load --players 8,32,128 --seconds 40
    .venv/bin/python -m bench.load --games district-noir --players 32 --seconds 20 --peer
    .venv/bin/python -m bench.load --players 8 --seconds 10 --no-write   # a quick check

``--fault redis-pause`` (or ``redis-restart``) pauses the private Redis (or kills it and starts
it again empty) for ``--fault-seconds`` in the middle of each phase, and reports the moves
accepted against the moves stored, the longest action, the sockets closed and how, and how
long pages took to get pushes again (issue 20).

One module a job: ``stack`` (the processes), ``players`` (their accounts), ``client`` (a
browser over HTTP), ``live`` (its page with the websocket open), ``board`` (what a page
shows), ``wire`` (bytes on the wire), ``stats`` (what a phase counts), ``faults``, ``peer``,
``pgbench``, ``report`` (what it prints and writes), ``run`` (the phases), ``__main__`` (the
command line). The processes it starts come from ``tests/support/processes.py``, as the
tests' do.
"""
