"""Change the provider's users while it runs, as its administrator would: `add NAME PASSWORD [GROUP...]`, `rename
OLD NEW` (the subject, the user's id, stays: only the preferred_username changes)."""

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.oidcprovider.settings")
django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402

command, *args = sys.argv[1:]
if command == "add":
    name, password, *groups = args
    user = User.objects.create_user(name, f"{name}@example.org", password, first_name=name.title(), last_name="Doe")
    user.groups.set([Group.objects.get_or_create(name=g)[0] for g in groups])
    print(user.pk)
elif command == "rename":
    old, new = args
    user = User.objects.get(username=old)
    user.username = new
    user.save(update_fields=["username"])
    print(user.pk)
else:
    raise SystemExit(f"unknown command {command!r}: add or rename")
