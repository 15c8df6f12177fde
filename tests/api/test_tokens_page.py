"""The settings page of personal access tokens (issue #30.1): made with scopes, shown once,
stored hashed, revoked; a closed account's tokens stop; the export names them."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.urls import reverse

from accounts.closing import account_close
from accounts.export import account_export
from api.models import AccessToken
from tests.conftest import client_for
from tests.support.api import call, token_for

pytestmark = pytest.mark.django_db

PAGE_QUERIES = 3  # the API settings page, however many tokens it lists


def _secret_in(html: str) -> str:
    found = re.search(r'id="token-value" readonly value="(ctp_[^"]+)"', html)
    assert found, "the new token is shown"
    return found.group(1)


def test_a_token_is_made_with_its_scopes_and_shown_only_once(alice):
    client = client_for(alice)
    answer = client.post(
        reverse("api_tokens"), {"name": "my bot", "scopes": ["read", "play"]}, follow=True
    )
    assert answer.status_code == 200
    assert answer.redirect_chain, "sent on to a page of its own: a reload posts nothing again"
    secret = _secret_in(answer.content.decode())
    token = AccessToken.objects.get(user=alice)
    assert token.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert token.scope_list == ["read", "play"]
    again = client.get(reverse("api_tokens")).content.decode()
    assert secret not in again
    assert "my bot" in again and token.prefix in again
    assert call("get", "/api/account", secret).json()["scopes"] == ["read", "play"]


def test_a_token_without_a_name_or_scope_is_not_made(alice):
    client = client_for(alice)
    assert client.post(reverse("api_tokens"), {"name": "", "scopes": ["read"]}).status_code == 400
    assert client.post(reverse("api_tokens"), {"name": "x", "scopes": []}).status_code == 400
    answer = client.post(reverse("api_tokens"), {"name": "x", "scopes": ["root"]})
    assert answer.status_code == 400
    assert not AccessToken.objects.exists()


def test_revoking_stops_the_token_and_another_players_token_cannot_be_revoked(alice, bob):
    secret = token_for(alice, "read")
    token = AccessToken.objects.get(user=alice)
    client_for(bob).post(reverse("api_token_revoke", args=[token.pk]))
    assert call("get", "/api/account", secret).status_code == 200
    answer = client_for(alice).post(reverse("api_token_revoke", args=[token.pk]), follow=True)
    assert "revoked" in answer.content.decode()
    assert call("get", "/api/account", secret).status_code == 401
    assert token.prefix not in client_for(alice).get(reverse("api_tokens")).content.decode()


def test_the_page_asks_to_sign_in():
    answer = client_for(None).get(reverse("api_tokens"))
    assert answer.status_code == 302


def test_a_closed_accounts_tokens_stop_and_the_export_names_them_without_secrets(alice):
    secret = token_for(alice, "read")
    exported = account_export(user=alice)
    tokens = exported["api"]["tokens"]
    assert [t["name"] for t in tokens] == ["test"]
    token = AccessToken.objects.get(user=alice)
    assert token.key_hash not in str(exported) and secret not in str(exported)
    account_close(user=alice)
    assert call("get", "/api/account", secret).status_code == 401


@pytest.mark.parametrize("count", [1, 6])
def test_the_page_costs_the_same_with_one_token_or_six(alice, count, django_assert_max_num_queries):
    for _ in range(count):
        token_for(alice, "read")
    client = client_for(alice)
    client.get(reverse("api_tokens"))
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(reverse("api_tokens")).status_code == 200
