"""Rewrite every encrypted column with the current MONITOR_SECRETS_KEY (after a key rotation)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import models, transaction
from django.db.models.functions import Cast

from monitor.core.secrets import UndecryptableSecret, decrypt_strict, encrypted_fields, on_current_key


class Command(BaseCommand):
    help = (
        "Re-encrypt stored secrets (device communities and SNMPv3 keys, the mail server password) with "
        "MONITOR_SECRETS_KEY; values still on an old key must decrypt with one in MONITOR_SECRETS_KEY_PREVIOUS."
    )

    def handle(self, *args, **options) -> None:
        rewritten, current, unreadable = 0, 0, []
        for model, names in encrypted_fields():
            label = model._meta.label
            for name in names:
                # The stored text as it is in the column (Cast skips the field's decryption on read).
                rows = model.objects.annotate(_stored=Cast(name, models.TextField())).values_list("pk", "_stored")
                for pk, stored in rows.iterator():
                    if on_current_key(stored):
                        current += 1 if stored else 0
                        continue
                    try:
                        plain = decrypt_strict(stored)
                    except UndecryptableSecret:
                        unreadable.append(f"{label} id={pk} field {name}")
                        continue
                    rewritten += self._rewrite(model, pk, name, stored, plain)
        self.stdout.write(f"Re-encrypted {rewritten} value(s) with the current key; {current} already used it.")
        for where in unreadable:
            self.stderr.write(f"{where}: no key decrypts it (left unchanged)")
        if unreadable:
            raise CommandError(
                f"{len(unreadable)} value(s) could not be decrypted with MONITOR_SECRETS_KEY or any key in "
                "MONITOR_SECRETS_KEY_PREVIOUS: add the old key there and run again, or enter those secrets anew."
            )

    @staticmethod
    def _rewrite(model, pk, name: str, stored: str, plain: str) -> int:
        """Update one value only if it is still what was read (an edit meanwhile wins); saving encrypts it."""
        with transaction.atomic():
            still = model.objects.annotate(_stored=Cast(name, models.TextField())).filter(pk=pk, _stored=stored)
            return still.update(**{name: plain})
