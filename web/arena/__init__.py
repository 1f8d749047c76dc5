"""The arena of `foxgeese serve --arena`: registered bots, a standing ladder per variant, a queue of
tests (SPRTs or fixed matches) and the workers that play their games, all kept in the server's
SQLite file (db.py), so that a `kill -9` of the server loses nothing and plays nothing twice.

Modules: `db.py` (tables and the transactions that claim and commit a pair of games), `ladder.py`
(ratings of the ladder and which pair tells most), `tests.py` (a test's verdict), `health.py` (the
checks that take a worker out of rotation), `service.py` (the scheduler and the workers' threads),
`routes.py` (pages and JSON), `cli.py` (`foxgeese arena ...`). docs/arena.md is the user's guide.
"""
