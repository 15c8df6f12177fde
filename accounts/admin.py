from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import Block, Follow, User, Vacation


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        (
            "Profile",
            {
                "fields": (
                    "display_name",
                    "time_zone",
                    "reminder_delay",
                    "quiet_hours_start",
                    "quiet_hours_end",
                )
            },
        ),
    )
    list_display = ("username", "email", "display_name", "time_zone", "is_staff")


@admin.register(Vacation)
class VacationAdmin(admin.ModelAdmin):
    list_display = ("user", "starts_at", "ends_at", "ended_at")
    raw_id_fields = ("user",)


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    list_display = ("follower", "followed", "created_at")
    raw_id_fields = ("follower", "followed")


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("blocker", "blocked", "hide_lines", "no_games", "no_contact", "created_at")
    raw_id_fields = ("blocker", "blocked")
