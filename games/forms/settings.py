from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.models import User

# The cadence and its two numbers: a post without them keeps the player's (they came later).
CADENCE_FIELDS = ["reminder_cadence", "reminder_hour", "reminder_every_hours"]


class ReminderSettingsForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["reminder_delay", *CADENCE_FIELDS, "quiet_hours_start", "quiet_hours_end"]
        widgets = {
            "reminder_cadence": forms.RadioSelect,
            "quiet_hours_start": forms.TimeInput(attrs={"type": "time"}),
            "quiet_hours_end": forms.TimeInput(attrs={"type": "time"}),
        }
        help_texts = {
            "reminder_hour": _('With "a daily digest": in your time zone.'),
            "reminder_every_hours": _('With "every few hours".'),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in CADENCE_FIELDS:
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        for name in CADENCE_FIELDS:
            if name in data and data[name] in (None, ""):
                data[name] = getattr(self.instance, name)
        start, end = data.get("quiet_hours_start"), data.get("quiet_hours_end")
        if (start is None) != (end is None):
            raise forms.ValidationError(_("Give both ends of your quiet hours, or neither."))
        return data


class VacationForm(forms.Form):
    days = forms.IntegerField(
        label=_("Days of vacation, starting now"),
        min_value=1,
        max_value=settings.VACATION_DAYS_PER_YEAR,
        initial=7,
    )


class ConfirmMovesForm(forms.ModelForm):
    """Whether a click on a move plays it, or chooses it for a second step (Play)."""

    class Meta:
        model = User
        fields = ["confirm_moves"]
        widgets = {"confirm_moves": forms.RadioSelect}
