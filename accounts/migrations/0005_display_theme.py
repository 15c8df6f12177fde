from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_display_settings'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='display_theme',
            field=models.CharField(choices=[('light', 'light'), ('dark', 'dark'), ('system', 'as the system')], default='system', max_length=8, verbose_name='theme'),
        ),
    ]
