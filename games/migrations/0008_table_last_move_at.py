from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def date_the_last_moves(apps, schema_editor):
    """Every table that has moves gets the time of its last one, in one statement."""
    Table = apps.get_model("games", "Table")
    Move = apps.get_model("games", "Move")
    last = Move.objects.filter(table_id=OuterRef("pk")).order_by("-seq").values("created_at")[:1]
    Table.objects.filter(moves_played__gt=0).update(last_move_at=Subquery(last))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_solo_results"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="last_move_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(date_the_last_moves, migrations.RunPython.noop),
    ]
