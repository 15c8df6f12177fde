"""The most queries a page may cost (invariant 4: a fixed number, however long the game, the
log or the player's record), where the tests of more than one module count a page against it."""

# Session, user, then the page's own queries.
TABLE_PAGE_QUERIES = 5
# Session and user, the player, ratings, chart, record, running tables and their
# seats, finished tables (count, page, seats) and their rating changes.
PROFILE_QUERIES = 12
# Session and user, then the table, its seats, its moves and its rating changes.
REPLAY_QUERIES = 6
