"""Years of data (#31.5): a site's database after years of play, and what its pages and sweeps
cost on it.

``python -m bench.years`` makes a fresh PostgreSQL database (``bench_years_<random>``),
migrates it and fills it by SQL (``fill``): 100,000 players, 1,000,000 finished tables over four
years (each a copy of a game the rules played, ``recorded``: its seed, moves and state, so that
every one replays exactly), their seats, moves, results and rating changes, 10,000 tables still
in play (``running``), and what the sweeps read. Then it measures, in this process through
the site's URLs and middleware (``measure``), the lobby, the leaderboards, the profile of a
player with 5,000 games and their history, a replay, and every periodic sweep; and writes its
figures into docs/benchmarks.md (``report``). The database is dropped at the end unless
``--keep``; ``--database NAME`` measures (and first fills, if empty) one of yours.
"""
