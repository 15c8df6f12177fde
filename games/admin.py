from django.contrib import admin

from games.models import Move, Rating, RatingChange, Reminder, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ("user",)
    fields = (
        "position",
        "user",
        "bot_level",
        "is_waiting",
        "deadline",
        "timeouts",
        "replaced_by_bot",
    )
    readonly_fields = ("is_waiting", "deadline")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "num_seats", "version", "created_by", "created_at")
    list_filter = ("game", "status")
    inlines = [SeatInline]
    readonly_fields = ("seed", "state", "outcome", "version")


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    """What the sweeps will do next: seats the game waits for, by deadline."""

    list_display = (
        "table",
        "position",
        "user",
        "is_waiting",
        "deadline",
        "reminder_due_at",
        "warn_at",
        "timeouts",
        "seen_at",
    )
    list_filter = ("is_waiting", "replaced_by_bot")
    ordering = ("deadline",)
    raw_id_fields = ("table", "user")


@admin.register(Reminder)
class ReminderAdmin(admin.ModelAdmin):
    """What was sent (and what is queued)."""

    list_display = ("created_at", "kind", "user", "seat", "turn", "sent_at")
    list_filter = ("kind", ("sent_at", admin.EmptyFieldListFilter))
    ordering = ("-created_at",)
    raw_id_fields = ("seat", "user")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("table", "seq", "position", "by", "created_at")
    list_filter = ("by",)
    raw_id_fields = ("table",)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "game", "ordinal", "mu", "sigma", "games_played", "last_played")
    list_filter = ("game",)
    ordering = ("game", "-ordinal")
    raw_id_fields = ("user",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "user",
        "game",
        "table",
        "rank",
        "ordinal_before",
        "ordinal_after",
    )
    list_filter = ("game",)
    raw_id_fields = ("user", "table")
