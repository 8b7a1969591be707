"""Sign-in with OpenID Connect against a real provider on loopback (django-oidc-provider in a server of its own):
the authorization code flow end to end, groups from the provider's claim become tree read permissions, local
accounts keep working; a provider user is their issuer and subject, never a name: no account they did not create
(local, directory, another provider user's) becomes theirs."""

# ruff: noqa: F401, F811 (the sign-in fixtures: imported from tests/signin.py, named as arguments)
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from monitor.core.oidc_settings import oidc_settings
from monitor.graphs.trees.models import Tree
from tests.ldapserver import GROUPS, PEOPLE
from tests.signin import CLIENT_ID, directory, ldap_on, log_in, oidc_on, provider, provider_redirect, sign_in

pytestmark = pytest.mark.django_db


def test_the_code_flow_logs_in_and_maps_the_groups_claim_to_trees(oidc_on, client, settings):
    network, storage = Tree.objects.create(name="Network"), Tree.objects.create(name="Storage")
    network.read_groups.add(Group.objects.get_or_create(name="netops")[0])
    login = client.get("/login/").content.decode()
    assert 'id="oidc-login"' in login and "Sign in with single sign-on" in login
    landed = sign_in(client, oidc_on, "dana", "dana-pass-1")
    assert landed.status_code == 302 and landed["Location"] == "/"
    dana = get_user_model().objects.get(username="dana")
    assert client.session["_auth_user_id"] == str(dana.pk)
    assert sorted(dana.groups.values_list("name", flat=True)) == ["monitor-admins", "netops"]
    assert not dana.is_staff and dana.email == "dana@example.org" and not dana.has_usable_password()
    assert client.get(f"/trees/{network.pk}/").status_code == 200
    assert client.get(f"/trees/{storage.pk}/").status_code == 404
    settings.MONITOR_OIDC_STAFF_GROUP = "monitor-admins"  # flags are worked out again at every login
    client.logout()
    assert sign_in(client, oidc_on, "dana", "dana-pass-1").status_code == 302
    assert get_user_model().objects.get(username="dana").is_staff


def signed_in(client):
    """The account the client's session is logged into (None: not logged in)."""
    user_id = client.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id) if user_id else None


def test_a_provider_user_named_like_a_local_account_gets_one_of_their_own(oidc_on, client):
    admin = get_user_model().objects.create_superuser("admin", "root@example.com", "local-pass-123")
    landed = sign_in(client, oidc_on, "admin", "x-pass-12345")  # the provider also has an "admin"
    assert landed.status_code == 302 and landed["Location"] == "/"
    other = signed_in(client)
    assert other.pk != admin.pk and other.username == "admin-sso"
    assert not (other.is_superuser or other.is_staff) and not other.has_usable_password()
    client.logout()
    assert log_in(client, "admin", "local-pass-123") == 302 and signed_in(client) == admin  # local logins still work


def test_a_provider_user_named_like_a_directory_superuser_does_not_become_them(ldap_on, oidc_on, client):
    ldap_on.modify(f"dn: cn=monitor-root,{GROUPS}\nchangetype: modify\nadd: member\nmember: uid=alice,{PEOPLE}\n")
    assert log_in(client, "alice", "alice-pass-1") == 302
    alice = get_user_model().objects.get(username="alice")
    assert alice.is_superuser and not alice.has_usable_password()  # created by the directory sign-in
    groups = sorted(alice.groups.values_list("name", flat=True))
    client.logout()
    oidc_on.users("add", "alice", "provider-alice-1")  # someone else, at the provider
    landed = sign_in(client, oidc_on, "alice", "provider-alice-1")
    assert landed.status_code == 302
    other = signed_in(client)
    assert other.pk != alice.pk and other.username == "alice-sso" and not (other.is_superuser or other.is_staff)
    alice.refresh_from_db()
    assert alice.is_superuser and sorted(alice.groups.values_list("name", flat=True)) == groups  # untouched
    client.logout()
    assert log_in(client, "alice", "alice-pass-1") == 302 and signed_in(client) == alice  # hers, still


def test_a_renamed_provider_user_keeps_their_account_and_their_old_name_goes_to_nobody_else(oidc_on, client):
    oidc_on.users("add", "erin", "erin-pass-1")
    assert sign_in(client, oidc_on, "erin", "erin-pass-1").status_code == 302
    erin = signed_in(client)
    assert erin.username == "erin"
    tree = Tree.objects.create(name="Erin's")
    tree.read_users.add(erin)
    client.logout()
    oidc_on.users("rename", "erin", "erin-b")  # same subject, new preferred_username
    assert sign_in(client, oidc_on, "erin-b", "erin-pass-1").status_code == 302
    assert signed_in(client) == erin and not get_user_model().objects.filter(username="erin-b").exists()
    assert client.get(f"/trees/{tree.pk}/").status_code == 200
    client.logout()
    oidc_on.users("add", "erin", "other-erin-1")  # a second provider user takes the name that was freed
    assert sign_in(client, oidc_on, "erin", "other-erin-1").status_code == 302
    other = signed_in(client)
    assert other.pk != erin.pk and other.username == "erin-sso"
    assert client.get(f"/trees/{tree.pk}/").status_code == 404


def test_an_account_of_an_earlier_sign_in_is_adopted_once_an_administrator_marks_it(oidc_on, client):
    from django.core.management.base import CommandError

    oidc_on.users("add", "gale", "gale-pass-1")
    gale = get_user_model().objects.create_user("gale")  # as sign-ins created it before subjects were recorded
    tree = Tree.objects.create(name="Gale's")
    tree.read_users.add(gale)
    get_user_model().objects.create_user("hal", password="local-pass-123")
    with pytest.raises(CommandError, match="hal has a password"):  # a local account is never handed over
        call_command("oidc_adopt", "hal")
    with pytest.raises(CommandError, match="no account named 'nobody'"):
        call_command("oidc_adopt", "nobody")
    listed = io.StringIO()
    call_command("oidc_adopt", "--list", stdout=listed)
    assert "gale\tlast login never" in listed.getvalue() and "hal" not in listed.getvalue()  # hal has a password
    out = io.StringIO()
    call_command("oidc_adopt", "gale", "--list", stdout=out)
    assert "gale: adopted by the next single sign-on as gale" in out.getvalue()
    assert sign_in(client, oidc_on, "gale", "gale-pass-1").status_code == 302
    assert signed_in(client) == gale and client.get(f"/trees/{tree.pk}/").status_code == 200
    client.logout()
    oidc_on.users("rename", "gale", "gale-b")  # adopted once: from then on by subject, like any other
    assert sign_in(client, oidc_on, "gale-b", "gale-pass-1").status_code == 302 and signed_in(client) == gale
    listed = io.StringIO()
    call_command("oidc_adopt", "--list", stdout=listed)
    assert "gale" not in listed.getvalue()  # it has its provider user now
    with pytest.raises(CommandError, match="gale already belongs to subject"):
        call_command("oidc_adopt", "gale")


def test_a_taken_name_gets_the_first_free_sso_name_in_any_case(db, django_user_model):
    from monitor.core.oidc_accounts import free_username

    django_user_model.objects.create_user("kim")
    django_user_model.objects.create_user("Kim-SSO")
    assert free_username("KIM") == "KIM-sso-2"
    assert free_username("lee") == "lee"
    long = "x" * 150
    django_user_model.objects.create_user(long)
    assert free_username(long) == "x" * 146 + "-sso" and len(free_username(long)) == 150


def test_the_password_form_never_redeems_a_provider_code(oidc_on, client):
    """A code and state sent to the login form (not the callback) are not exchanged: the code stays the owner's."""
    callback = provider_redirect(client, oidc_on, "dana", "dana-pass-1")  # dana's browser, before it is back
    attacker = Client()
    answer = attacker.post(f"/login/?{callback.split('?', 1)[1]}", {"username": "dana", "password": "guess"})
    assert answer.status_code == 200 and "did not match" in answer.content.decode()
    assert signed_in(attacker) is None
    landed = client.get(callback)
    assert landed.status_code == 302 and landed["Location"] == "/" and signed_in(client).username == "dana"


def test_off_until_configured_and_a_half_configuration_is_refused(client, monkeypatch):
    from monitor.core.config import ConfigError

    assert client.get("/oidc/authenticate/").status_code == 404
    assert 'id="oidc-login"' not in client.get("/login/").content.decode()
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_ID", CLIENT_ID)
    with pytest.raises(ConfigError, match="MONITOR_OIDC_AUTHORIZATION_URL is needed"):
        oidc_settings()
