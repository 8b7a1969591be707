"""Encrypt device secrets at rest (Fernet) with a key from the environment; never show them back."""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db import models

PREFIX = "enc1:"


@lru_cache(maxsize=4)
def _fernet(key_material: str) -> Fernet:
    digest = hashlib.sha256(key_material.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def _cipher() -> Fernet:
    return _fernet(settings.MONITOR_SECRETS_KEY or settings.SECRET_KEY)


def encrypt(plain: str) -> str:
    if not plain:
        return ""
    return PREFIX + _cipher().encrypt(plain.encode()).decode()


def decrypt(stored: str) -> str:
    """Decrypt a stored secret; a value that cannot be decrypted reads as empty (and the device errors)."""
    if not stored:
        return ""
    if not stored.startswith(PREFIX):
        return stored
    try:
        return _cipher().decrypt(stored[len(PREFIX) :].encode()).decode()
    except InvalidToken:
        return ""


class EncryptedTextField(models.TextField):
    """A text column stored encrypted; Python code sees the plain value."""

    def from_db_value(self, value, expression, connection):
        return decrypt(value) if value is not None else value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return encrypt(value) if value else ""
