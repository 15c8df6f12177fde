"""allauth.mfa's passkey forms (settings.MFA_FORMS), refusing what is not a browser's answer.

allauth hands the posted "credential" to python-fido2, which raises a KeyError, TypeError or
RecursionError for a payload with parts missing or nested too deep; allauth catches only some of
them, and the rest were a 500. Here any of them is the form's "Incorrect code." (400). A key's
name is at most ``KEY_NAME_MAX`` characters: allauth takes any length, and a name of thousands
would be stored and shown on every visit to the list of keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.mfa.adapter import get_adapter
from allauth.mfa.webauthn.forms import (
    AddWebAuthnForm,
    AuthenticateWebAuthnForm,
    EditWebAuthnForm,
    LoginWebAuthnForm,
    ReauthenticateWebAuthnForm,
    SignupWebAuthnForm,
)
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

KEY_NAME_MAX = 60  # a phone's or a key's model name, with room to spare
# What python-fido2 raises for a credential that is not one (besides allauth's ValidationError).
NOT_A_CREDENTIAL = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)


class CredentialField(forms.JSONField):
    """The hidden field for the browser's answer: JSON nested too deep is invalid, not a 500."""

    def to_python(self, value: Any) -> Any:
        try:
            return super().to_python(value)
        except RecursionError as error:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from error


def _name_field(required: bool) -> forms.CharField:
    return forms.CharField(label=_("Name"), required=required, max_length=KEY_NAME_MAX)


def _credential_field() -> CredentialField:
    return CredentialField(required=True, widget=forms.HiddenInput)


def _incorrect(check: Callable[[], Any]) -> Any:
    try:
        return check()
    except NOT_A_CREDENTIAL as error:
        raise get_adapter().validation_error("incorrect_code") from error


class AddKeyForm(AddWebAuthnForm):
    name = _name_field(required=False)
    credential = _credential_field()

    def clean(self) -> dict:
        return _incorrect(super().clean)


class SignupKeyForm(SignupWebAuthnForm):
    name = _name_field(required=False)
    credential = _credential_field()

    def clean(self) -> dict:
        return _incorrect(super().clean)


class EditKeyForm(EditWebAuthnForm):
    name = _name_field(required=True)


class AuthenticateKeyForm(AuthenticateWebAuthnForm):
    credential = _credential_field()

    def clean_credential(self) -> Any:
        return _incorrect(super().clean_credential)


class LoginKeyForm(LoginWebAuthnForm):
    credential = _credential_field()

    def clean_credential(self) -> Any:
        return _incorrect(super().clean_credential)


class ReauthenticateKeyForm(ReauthenticateWebAuthnForm):
    credential = _credential_field()

    def clean_credential(self) -> Any:
        return _incorrect(super().clean_credential)
