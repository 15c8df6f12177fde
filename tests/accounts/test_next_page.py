"""The header's language and display forms go back to the page they were sent from, and
only to a page of this site: anything else in ``next`` leads to the home page."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.views import safe_next_path
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

FORMS = {
    "language_set": {"language": "cs"},
    "display_set": {"contrast": "60", "grain": "20", "warmth": "40"},
}
NOT_A_PAGE_HERE = [
    "abc",  # a bare word: redirect() took it for a URL name (NoReverseMatch, a 500)
    "%%",
    "profile_edit",  # a real URL name must not be followed either
    "//evil.example",
    "https://evil.example",
    "http://testserver/profile/",  # absolute, even to this host: not a path
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    " /profile/",
    "/\x00",
    "",
]


@pytest.mark.parametrize("view", sorted(FORMS))
@pytest.mark.parametrize("target", NOT_A_PAGE_HERE)
def test_anything_but_a_local_path_goes_home(view, target, alice):
    for client in (Client(), client_for(alice)):
        response = client.post(reverse(view), {**FORMS[view], "next": target})
        assert response.status_code == 302, (target, response.status_code)
        assert response["Location"] == "/", target


@pytest.mark.parametrize("view", sorted(FORMS))
def test_a_local_path_is_kept_with_its_query(view):
    response = Client().post(reverse(view), {**FORMS[view], "next": "/games/slide/?page=2"})
    assert response.status_code == 302
    assert response["Location"] == "/games/slide/?page=2"


def test_the_check_itself():
    assert safe_next_path("/t/3/", "testserver", secure=False) == "/t/3/"
    for target in NOT_A_PAGE_HERE:
        assert safe_next_path(target, "testserver", secure=False) == "/", target
