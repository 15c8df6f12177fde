"""The chat in Django's admin: the reported lines first, to read with the lines around them."""

from __future__ import annotations

from django.contrib import admin

from community.models import ChatLine, ChatReport


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
