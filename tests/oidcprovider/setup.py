"""Prepare the provider's database: tables, a signing key, a user with groups, and the monitor as a client."""

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.oidcprovider.settings")
django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oidc_provider.models import Client, ResponseType  # noqa: E402

client_id, secret, redirect = sys.argv[1:4]
call_command("migrate", verbosity=0)
call_command("creatersakey")
for name, password, groups in (("dana", "dana-pass-1", ["netops", "monitor-admins"]), ("admin", "x-pass-12345", [])):
    user = User.objects.create_user(name, f"{name}@example.org", password, first_name=name.title(), last_name="Doe")
    user.groups.set([Group.objects.get_or_create(name=g)[0] for g in groups])
client = Client.objects.create(
    name="monitor", client_type="confidential", client_id=client_id, client_secret=secret, jwt_alg="RS256",
    require_consent=False, reuse_consent=True,
)  # fmt: skip
client.redirect_uris = [redirect]
client.scope = ["openid", "email", "profile", "groups"]
client.save()
client.response_types.add(ResponseType.objects.get(value="code"))
