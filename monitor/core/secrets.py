"""Encrypt secrets at rest (Fernet) with keys from the environment; old keys still decrypt after a rotation. In memory
a secret is a `Secret`: a str to every library, masked wherever variables are shown (debug pages, %r in logs)."""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models
from django.db.models.query_utils import DeferredAttribute
from django.views.debug import SafeExceptionReporterFilter

PREFIX = "enc1:"
MASK = "********"


class Secret(str):
    """A secret's plain text: an ordinary str to SNMP engines and ciphers, but repr() shows stars, so the variables a
    debug page, an error mail or a `%r` prints (the ORM's update values, a form's cleaned data) never show it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(MASK)


def masked(value):
    """A str as a Secret (anything else as it is): for values that hold a secret from the moment they are read."""
    return Secret(value) if isinstance(value, str) and not isinstance(value, Secret) else value


class SecretsExceptionFilter(SafeExceptionReporterFilter):
    """Django's filter of error reports, active under DEBUG too: Django shows posted secrets and the variables of
    functions marked sensitive on a DEBUG page; here they are starred there as in an error mail."""

    def is_active(self, request) -> bool:
        return True


class UndecryptableSecret(ValueError):
    """A stored value that no configured key (current or previous) decrypts."""


@lru_cache(maxsize=16)
def _fernet(key_material: str) -> Fernet:
    digest = hashlib.sha256(key_material.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def current_key() -> str:
    """The key new values are encrypted with: MONITOR_SECRETS_KEY, else the Django secret key."""
    return settings.MONITOR_SECRETS_KEY or settings.SECRET_KEY


def previous_keys() -> list[str]:
    """Old keys (MONITOR_SECRETS_KEY_PREVIOUS, comma-separated) that still decrypt, never encrypt."""
    keys = getattr(settings, "MONITOR_SECRETS_KEY_PREVIOUS", None) or []
    if isinstance(keys, str):
        keys = keys.split(",")
    return [key.strip() for key in keys if key.strip()]


def _cipher() -> MultiFernet:
    """The current key first (it encrypts), then every previous key (tried in turn to decrypt)."""
    keys = [current_key(), *previous_keys()]
    return MultiFernet([_fernet(key) for key in dict.fromkeys(keys)])


def encrypt(plain: str) -> str:
    if not plain:
        return ""
    return PREFIX + _cipher().encrypt(plain.encode()).decode()


def decrypt_strict(stored: str) -> str:
    """Decrypt a stored value with the current or a previous key; raise UndecryptableSecret otherwise."""
    if not stored or not stored.startswith(PREFIX):
        return stored or ""  # empty, or a value stored before encryption existed
    try:
        return _cipher().decrypt(stored[len(PREFIX) :].encode()).decode()
    except InvalidToken:
        raise UndecryptableSecret("no configured key decrypts this value") from None


def decrypt(stored: str) -> str:
    """Decrypt a stored secret; a value that cannot be decrypted reads as empty (and the device errors)."""
    try:
        return decrypt_strict(stored)
    except UndecryptableSecret:
        return ""


def on_current_key(stored: str) -> bool:
    """True when the stored value is empty or encrypted with the current key (nothing to rewrite)."""
    if not stored:
        return True
    if not stored.startswith(PREFIX):
        return False
    try:
        _fernet(current_key()).decrypt(stored[len(PREFIX) :].encode())
    except InvalidToken:
        return False
    return True


def encrypted_fields() -> list[tuple[type[models.Model], list[str]]]:
    """Every model with encrypted columns, and their names: what a key rotation must rewrite."""
    from django.apps import apps

    found = []
    for model in apps.get_models():
        names = [f.name for f in model._meta.concrete_fields if isinstance(f, EncryptedTextField)]
        if names:
            found.append((model, names))
    return found


class SecretAttribute(DeferredAttribute):
    """The model attribute of an encrypted column: whatever is assigned (a form's value, a row read) is kept as a
    Secret."""

    def __set__(self, instance, value) -> None:
        instance.__dict__[self.field.attname] = masked(value)


class EncryptedTextField(models.TextField):
    """A text column stored encrypted; Python code sees the plain value (as a Secret)."""

    descriptor_class = SecretAttribute

    def from_db_value(self, value, expression, connection):
        return decrypt(value) if value is not None else value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return encrypt(value) if value else ""
