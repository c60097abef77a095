"""A two-seat classic game (Ann and Bo) set up and accepted in a fresh SQLite app, for the benchmarks
that measure one game's requests (bench/growth.py, bench/move_path_counts.py)."""

from __future__ import annotations

import tempfile


def started_game(name: str, target_score: int):
    """(app, game id, {seat: link token}) of a dealt game with seed `name`."""
    from service import create_app
    from service.play import games
    from service.store import db

    folder = tempfile.mkdtemp(prefix=f"skyjo-{name}-")
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{folder}/{name}.sqlite3",
                      "SECRET_KEY": name, "BASE_URL": "http://localhost", "ENV_NAME": "development"})
    with app.app_context():
        db.create_all()
        with db.transaction(write=True) as s:
            created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                        players=[("Bo", "bo@example.com")],
                                        options={"target_score": target_score}, setup={"seed": name})
        for token in created.tokens.values():
            with db.transaction(write=True) as s:
                games.accept(s, token)
    return app, created.game.id, created.tokens
