"""The moderators' queue in Django's admin: reports of lines (with the lines around them) and of
players, unhandled first, and what a moderator does with them, each with the reason they give
(``community.services.moderation``, which logs every action); the log itself, read-only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from community.models import ChatLine, ChatReport, ModerationAction, PlayerReport
from community.services import moderation
from games.errors import GameError

Kind = ModerationAction.Kind
AROUND = 5  # lines before and after a reported line, to read it in its place


def _apply(kind: str, moderator: User, player: User, line: ChatLine | None, reason: str) -> None:
    if kind == Kind.HIDE_LINE and line is not None:
        moderation.line_hide(moderator=moderator, line_id=line.pk, reason=reason)
    elif kind == Kind.DISABLE:
        moderation.account_disable(moderator=moderator, player=player, reason=reason)
    elif kind == Kind.DISMISS:
        moderation.reports_dismiss(moderator=moderator, player=player, reason=reason)
    else:
        moderation.player_mute(moderator=moderator, player=player, kind=kind, reason=reason)


def moderate(kind: str, target: Callable[[Any], tuple[User, ChatLine | None]]) -> Any:
    """An admin action that asks for the reason first (an intermediate page), then acts on each
    selected report's player (or line)."""

    def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> Any:
        reason = request.POST.get("reason", "")
        if request.POST.get("apply"):
            try:
                for report in queryset:
                    player, line = target(report)
                    _apply(kind, request.user, player, line, reason)  # type: ignore[arg-type]
            except GameError as exc:
                modeladmin.message_user(request, exc.message, messages.ERROR)
            else:
                modeladmin.message_user(request, _("Done, and logged."), messages.SUCCESS)
                return None
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": Kind(kind).label,
            "queryset": queryset,
            "action": f"moderate_{kind}",
            "opts": modeladmin.model._meta,
            "reason": reason,
        }
        return TemplateResponse(request, "admin/community/moderate.html", context)

    action.__name__ = f"moderate_{kind}"
    action.short_description = Kind(kind).label  # type: ignore[attr-defined]
    action.allowed_permissions = ("moderate",)  # type: ignore[attr-defined]
    return action


class ModeratedAdmin(admin.ModelAdmin):
    list_filter = [("handled_at", admin.EmptyFieldListFilter)]

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return isinstance(request.user, User) and moderation.is_moderator(request.user)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).order_by("-handled_at", "-created_at")

    @admin.display(boolean=True, description=gettext_lazy("handled"))
    def handled(self, report: Any) -> bool:
        return report.handled_at is not None


def _line_author(report: ChatReport) -> tuple[User, ChatLine | None]:
    return report.line.author, report.line


def _reported(report: PlayerReport) -> tuple[User, ChatLine | None]:
    return report.reported, None


@admin.register(ChatReport)
class ChatReportAdmin(ModeratedAdmin):
    list_display = ["created_at", "reporter", "line", "handled"]
    raw_id_fields = ["line", "reporter"]
    readonly_fields = ["around"]
    actions = [
        moderate(kind, _line_author)
        for kind in (Kind.HIDE_LINE, Kind.MUTE_15M, Kind.MUTE_DAY, Kind.MUTE_FOREVER, Kind.DISABLE)
    ] + [moderate(Kind.DISMISS, _line_author)]

    @admin.display(description=gettext_lazy("the lines around it"))
    def around(self, report: ChatReport) -> str:
        line = report.line
        room = ChatLine.objects.filter(table_id=line.table_id, room=line.room)
        before = list(room.filter(pk__lt=line.pk).order_by("-pk")[:AROUND])[::-1]
        after = list(room.filter(pk__gt=line.pk).order_by("pk")[:AROUND])
        rows = [
            (
                "reported" if other.pk == line.pk else "",
                other.created_at.strftime("%Y-%m-%d %H:%M"),
                other.author.public_name,
                other.text,
            )
            for other in [*before, line, *after]
        ]
        items = format_html_join("", '<li class="{}">{} <b>{}</b>: {}</li>', rows)
        return format_html("<ol>{}</ol>", items)


@admin.register(PlayerReport)
class PlayerReportAdmin(ModeratedAdmin):
    list_display = ["created_at", "reporter", "reported", "reason", "details", "handled"]
    list_filter = [("handled_at", admin.EmptyFieldListFilter), "reason"]
    search_fields = ["reported__username", "reporter__username", "details"]
    raw_id_fields = ["reported", "reporter"]
    actions = [
        moderate(kind, _reported)
        for kind in (Kind.MUTE_15M, Kind.MUTE_DAY, Kind.MUTE_FOREVER, Kind.DISABLE, Kind.DISMISS)
    ]


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    list_display = ["created_at", "table", "room", "author", "text", "hidden_at"]
    list_filter = ["room"]
    search_fields = ["text", "author__username"]
    raw_id_fields = ["table", "author"]


@admin.register(ModerationAction)
class ModerationActionAdmin(admin.ModelAdmin):
    """The log: who did what to whom, and why; nobody edits it."""

    list_display = ["created_at", "moderator", "kind", "player", "reason"]
    list_filter = ["kind"]
    search_fields = ["player__username", "moderator__username", "reason"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
