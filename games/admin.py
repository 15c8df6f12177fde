from django.contrib import admin

from games.models import Move, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "num_seats", "version", "created_by", "created_at")
    list_filter = ("game", "status")
    inlines = [SeatInline]
    readonly_fields = ("seed", "state", "outcome", "version")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("table", "seq", "position", "by", "created_at")
    list_filter = ("by",)
    raw_id_fields = ("table",)
