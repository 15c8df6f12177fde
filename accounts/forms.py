from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.contrib.auth import password_validation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.display import HIGHEST, LOWEST, THEMES
from accounts.models import User
from accounts.widgets import ManyOptionsSelect


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "language"]
        widgets = {"time_zone": ManyOptionsSelect}


class DisplayForm(forms.Form):
    """The header's display settings: the sliders, whole numbers from 0 to 100, and the theme
    (a form from before the theme existed sends none: the theme is left as it was)."""

    contrast = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    grain = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    warmth = forms.IntegerField(min_value=LOWEST, max_value=HIGHEST)
    theme = forms.ChoiceField(choices=[(theme, theme) for theme in THEMES], required=False)


def password_hint() -> str:
    """The one rule worth saying before anything is typed: the shortest length Django's
    validators accept (settings.AUTH_PASSWORD_VALIDATORS), or nothing without that rule."""
    for validator in password_validation.get_default_password_validators():
        if isinstance(validator, password_validation.MinimumLengthValidator):
            n = validator.min_length
            return ngettext("At least %(n)d character.", "At least %(n)d characters.", n) % {"n": n}
    return ""


class SignupForm(AllauthSignupForm):
    """allauth's sign-up form (settings.ACCOUNT_FORMS), with the same password validators, but
    the password's rules said only when they matter: a short hint until a password is refused,
    then the error and every rule."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "password1" in self.fields:
            self.fields["password1"].help_text = password_hint()

    def full_clean(self) -> None:
        super().full_clean()
        if "password1" in self.fields and self.has_error("password1"):
            every_rule = password_validation.password_validators_help_text_html()
            # The bound field copied the help text when cleaning made it: both change.
            self.fields["password1"].help_text = self["password1"].help_text = every_rule


class CloseAccountForm(forms.Form):
    """Closing is for good: the player ticks that they know it."""

    understood = forms.BooleanField(
        label=_("I understand: my account closes for good, and nothing brings it back."),
        error_messages={"required": _("Tick the box to close your account.")},
    )
