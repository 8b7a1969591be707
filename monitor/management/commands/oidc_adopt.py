"""Mark accounts made by OpenID Connect sign-ins before subjects were recorded, so their owners sign into them again.

Such an account is matched by nothing after the upgrade (a provider user is their issuer and subject, and those
accounts never recorded theirs): its owner's next sign-in would get a new `NAME-sso` account. Marked, it is adopted
by the next provider user of exactly its name, once; from then on it is theirs by subject. Only mark accounts that
single sign-on made: a directory account marked here is handed to the provider's user of that name.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from monitor.core.identities import OidcIdentity


class Command(BaseCommand):
    help = "Mark accounts of earlier single sign-ons (no password) for adoption by the next sign-in of that name."

    def add_arguments(self, parser) -> None:
        parser.add_argument("usernames", nargs="*", help="accounts to mark (exact user names)")
        parser.add_argument(
            "--list", action="store_true", help="list the accounts with no password and no provider user yet"
        )

    def handle(self, *args, **options) -> None:
        usernames = options["usernames"]
        if options["list"]:
            self._list()
        if not usernames and not options["list"]:
            raise CommandError("name the accounts to mark, or --list the candidates")
        with transaction.atomic():
            for name in usernames:
                self._mark(name)

    def _mark(self, name: str) -> None:
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise CommandError(f"no account named {name[:150]!r}: nothing marked")
        if user.has_usable_password():
            raise CommandError(f"{name} has a password: a local account is never handed to a provider's user")
        identity, created = OidcIdentity.objects.get_or_create(user=user)
        if identity.subject:
            raise CommandError(f"{name} already belongs to subject {identity.subject!r} of {identity.issuer}")
        self.stdout.write(f"{name}: adopted by the next single sign-on as {name}" + ("" if created else " (already)"))

    def _list(self) -> None:
        users = get_user_model().objects.exclude(oidc_identity__subject__gt="").order_by("username")
        for user in users:
            if not user.has_usable_password():
                marked = OidcIdentity.objects.filter(user=user).exists()
                last = user.last_login.isoformat(timespec="minutes") if user.last_login else "never"
                self.stdout.write(f"{user.username}\tlast login {last}" + ("\tmarked" if marked else ""))
