"""Solo games stored before their outcome said who won: a lost one was ranked first.

The rules protocol now ranks a one-seat game 0 if won and 1 if lost, behind the game, and
says so in ``outcome["details"]["solo"]`` (``games/rules/base.py: Outcome``). Every finished
one-seat table stored without it gets both, from its game's rules applied to its stored final
state; a seat a bot took over after too many timeouts lost (``services/moves.py``).
"""

from django.db import migrations

from games.rules import get_rules


def _solo_tables(apps):
    Table = apps.get_model("games", "Table")
    return Table.objects.filter(status="finished", num_seats=1, outcome__isnull=False)


def rank_solo_games_against_the_game(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    for table in _solo_tables(apps).exclude(outcome__details__has_key="solo").iterator():
        rules = get_rules(table.game)
        outcome = rules.outcome(rules.from_json(table.state)) if table.state else None
        if outcome is None or "solo" not in outcome.details:
            continue  # no game's rules say how this one went: leave it as it was
        fixed = {**table.outcome, **outcome.to_json()}  # keeps "forfeited", if any
        if table.outcome.get("forfeited"):
            fixed["ranks"] = [1]
            fixed["details"]["solo"]["won"] = False
        table.outcome = fixed
        table.save(update_fields=["outcome"])
        Seat.objects.filter(table_id=table.pk).update(rank=fixed["ranks"][0])


def rank_every_solo_game_first(apps, schema_editor):
    """As the old code stored them: every solo game first, its outcome without ``solo``."""
    Seat = apps.get_model("games", "Seat")
    for table in _solo_tables(apps).filter(outcome__details__has_key="solo").iterator():
        details = {k: v for k, v in table.outcome["details"].items() if k != "solo"}
        table.outcome = {**table.outcome, "ranks": [0], "details": details}
        table.save(update_fields=["outcome"])
        Seat.objects.filter(table_id=table.pk).update(rank=0)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_drop_table_deadline"),
    ]

    operations = [
        migrations.RunPython(rank_solo_games_against_the_game, rank_every_solo_game_first),
    ]
