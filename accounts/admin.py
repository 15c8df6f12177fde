from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import User


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Profile", {"fields": ("display_name", "time_zone")}))
    list_display = ("username", "email", "display_name", "time_zone", "is_staff")
