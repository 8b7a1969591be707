"""Helpers for admin tests: staff users holding only the permissions a test names, signed in on a test client."""

from __future__ import annotations

from django.contrib.auth.models import Permission


def staff_with(django_user_model, username: str, *permissions: str):
    """An active staff user (not a superuser) holding exactly these permissions ("app_label.codename", such as
    "monitor.view_device": two apps may have a model of the same name)."""
    user = django_user_model.objects.create_user(username, f"{username}@example.com", "s3cret-pass-123", is_staff=True)
    for permission in permissions:
        app_label, codename = permission.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return user


def signed_in(client, user):
    """The client, signed in as `user` (whoever it was signed in as before is signed out)."""
    client.logout()
    client.force_login(user)
    return client
