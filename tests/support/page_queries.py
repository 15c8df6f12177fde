"""The most queries a page may cost (invariant 4: a fixed number, however long the game, the
log or the player's record), where the tests of more than one module count a page against it."""

# The table's chat under a board (community/chat_pages.py): each room's latest lines, whether
# the table's room is closed to spectators (a spectator's page and the creator's), and a seat's
# mark that it read the lines shown.
CHAT_QUERIES = 4
# The chat of a finished game under its replay: each room's latest lines.
REPLAY_CHAT_QUERIES = 2
# Whether the table is a tournament's (tournaments/table_pages.py).
TABLE_TOURNAMENT_QUERIES = 1
# Session, user, then the page's own queries, the chat under the board, and its tournament.
TABLE_PAGE_QUERIES = 5 + CHAT_QUERIES + TABLE_TOURNAMENT_QUERIES
# The lobby of a signed-in player: their tables, the open ones and their latest finished, the
# seats of all three lists at once (their players' pace joined: no query of its own), the
# unread chat lines of their tables (one query for all).
LOBBY_QUERIES = 8
# How a signed-in viewer stands to the player (community/selectors/people.py: follows both ways
# and the viewer's block, in one query).
RELATION_QUERIES = 1
# The tournaments a player entered, on their profile (tournaments/profile_pages.py).
TOURNAMENT_QUERIES = 1
# Session and user, the player, ratings, chart, record, running tables and their
# seats, finished tables (count, page, seats) and their rating changes; the follow controls;
# their tournaments.
PROFILE_QUERIES = 12 + RELATION_QUERIES + TOURNAMENT_QUERIES
# Session and user, then the table, its seats, its moves and its rating changes.
REPLAY_QUERIES = 6 + REPLAY_CHAT_QUERIES
