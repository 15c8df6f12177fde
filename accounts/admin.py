from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.mail_stops import mail_stops
from accounts.models import Block, EmailStop, Follow, User, Vacation


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
        # Empty both to start e-mail to the address again (docs/deploy.md, "Bounces and
        # complaints").
        (_("E-mail stopped"), {"fields": ("email_stopped_at", "email_stopped_why")}),
    )
    list_display = ("username", "email", "display_name", "time_zone", "is_staff")
    list_filter = (*UserAdmin.list_filter, "email_stopped_why")
    actions = ("stop_email_bounced",)

    @admin.action(
        description=_("Stop e-mail to the selected players' addresses (bounced)"),
        permissions=("change",),
    )
    def stop_email_bounced(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        addresses = sorted({user.email for user in queryset if user.email})
        stopped = sum(mail_stops(addresses=addresses, why=EmailStop.BOUNCE).values())
        self.message_user(
            request,
            ngettext(
                "E-mail stopped for %(count)d player.",
                "E-mail stopped for %(count)d players.",
                stopped,
            )
            % {"count": stopped},
            messages.SUCCESS if stopped else messages.WARNING,
        )


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
