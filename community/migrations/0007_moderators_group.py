"""The "moderators" group: members who are staff read the reports in the admin and act on them
(community/admin.py); the log of their actions is read-only."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = [
    "view_chatreport",
    "change_chatreport",
    "view_playerreport",
    "change_playerreport",
    "view_chatline",
    "view_moderationaction",
]


def add_group(apps, schema_editor):
    for config in apps.get_app_configs():  # the permissions are made after migrate, else
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="moderators")
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="community", codename__in=PERMISSIONS)
    )


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="moderators").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("community", "0006_moderation"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(add_group, remove_group)]
