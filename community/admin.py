"""The chat in Django's admin: the reported lines first, to read with the lines around them."""

from __future__ import annotations

from django.contrib import admin

from community.models import ChatLine, ChatReport, PlayerReport


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    list_display = ["created_at", "table", "room", "author", "text"]
    list_filter = ["room"]
    search_fields = ["text", "author__username"]
    raw_id_fields = ["table", "author"]


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    list_display = ["created_at", "reporter", "line"]
    raw_id_fields = ["line", "reporter"]


@admin.register(PlayerReport)
class PlayerReportAdmin(admin.ModelAdmin):
    list_display = ["created_at", "reporter", "reported", "reason", "details"]
    list_filter = ["reason"]
    search_fields = ["reported__username", "reporter__username", "details"]
    raw_id_fields = ["reported", "reporter"]
