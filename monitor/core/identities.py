"""Which OpenID Connect user (issuer and subject) owns an account: the only way a provider's user finds theirs.

An account without a row is never signed into by OpenID Connect, whatever the provider calls its user: local and
directory accounts stay their owners'. A row with no subject yet marks an account of an earlier sign-in (before
subjects were recorded, `manage.py oidc_adopt`): the next provider user of that name claims it, once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

ISSUER_MAX, SUBJECT_MAX = 500, 255  # OpenID Connect: a subject is at most 255 ASCII characters


class OidcIdentity(models.Model):
    """An account's OpenID Connect user; an empty subject: awaiting adoption by name (see the module)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identity")
    issuer = models.CharField(max_length=ISSUER_MAX, blank=True, default="")
    subject = models.CharField(max_length=SUBJECT_MAX, blank=True, default="")
    linked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "monitor"
        verbose_name = "OpenID Connect identity"
        verbose_name_plural = "OpenID Connect identities"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], condition=~Q(subject=""), name="unique_oidc_subject")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.subject or 'awaiting adoption'}"
