from django import forms

from accounts.display import HIGHEST, LOWEST
from accounts.models import User


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "language"]


class DisplayForm(forms.Form):
    """The header's display sliders: whole numbers from 0 to 100."""

    contrast = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    grain = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    warmth = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
