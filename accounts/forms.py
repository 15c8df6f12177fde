from django import forms

from accounts.display import HIGHEST, LOWEST, THEMES
from accounts.models import User


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "language"]


class DisplayForm(forms.Form):
    """The header's display settings: the sliders, whole numbers from 0 to 100, and the theme
    (a form from before the theme existed sends none: the theme is left as it was)."""

    contrast = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    grain = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    warmth = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    theme = forms.ChoiceField(choices=[(theme, theme) for theme in THEMES], required=False)
