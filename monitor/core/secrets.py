"""Encrypt secrets at rest (Fernet) with keys from the environment; old keys still decrypt after a rotation."""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models

PREFIX = "enc1:"


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


class EncryptedTextField(models.TextField):
    """A text column stored encrypted; Python code sees the plain value."""

    def from_db_value(self, value, expression, connection):
        return decrypt(value) if value is not None else value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return encrypt(value) if value else ""
