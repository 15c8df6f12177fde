"""Tournament pairings, schedules and standings as pure functions (no Django).

The caller (a service of ``tournaments``) passes plain data: player ids, ratings and the
finished games (``history.Game``, ``history.Bye``), builds each player's history with
``history.build_histories`` and stores what comes back (``rounds.Round`` and its
``rounds.Table`` seats, ``standings.Standing``, ``knockout.Match``, ``league.League``).
The same input always gives the same output.

- ``history``: the finished games in, each player's history out.
- ``rounds``: what a pairing returns: tables (seat order) and byes.
- ``swiss``: a two-player Swiss round (a maximum-weight matching).
- ``round_robin``: groups of at most ten and a Berger schedule for each.
- ``multiplayer``: tables of three to six, their sizes, points by place.
- ``knockout``: a seeded single-elimination bracket, matches of 1, 3 or 5 games.
- ``league``: divisions of round-robin groups, promotion and relegation.
- ``standings``: points and tie-breaks for each format.
"""
