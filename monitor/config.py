"""Read settings from the environment, with `NAME_FILE` variants for secrets."""

from __future__ import annotations

import os
from pathlib import Path


class ConfigError(RuntimeError):
    """A setting is present but unusable."""


def env(name: str, default: str = "") -> str:
    """Return NAME, or the stripped contents of the file named by NAME_FILE, or the default."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{name}_FILE={file_name!r} cannot be read: {exc.strerror}") from None
    value = os.environ.get(name, "")
    return value if value != "" else default


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    """Return a finite float setting, checked against a lower bound."""
    raw = env(name, "")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} is below the minimum of {minimum}")
    return value


def env_bool(name: str, default: bool = False) -> bool:
    """Return a boolean setting; accepts 1/0, true/false, yes/no, on/off."""
    raw = env(name, "")
    if not raw:
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use true or false)")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    """Return an integer setting, checked against a lower bound."""
    raw = env(name, "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} is below the minimum of {minimum}")
    return value


def env_list(name: str, default: str) -> list[str]:
    """Return a comma-separated setting as a list of non-empty items."""
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def secret_from_var(name: str, var_dir: Path, file_name: str) -> str:
    """Return the secret NAME, or one kept in var_dir/file_name, created on first use (demo default)."""
    value = env(name, "")
    if value:
        return value
    path = var_dir / file_name
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    import secrets

    var_dir.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value)
    return value
