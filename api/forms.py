from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from api.models import Scope


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"), max_length=60, help_text=_("What the token is for, to tell it apart.")
    )
    scopes = forms.MultipleChoiceField(
        label=_("It may"),
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Scope.READ],
    )


class RatedAgainstBotsForm(forms.Form):
    rated_against_bots = forms.BooleanField(
        label=_("Rate my games against bot accounts"), required=False
    )
