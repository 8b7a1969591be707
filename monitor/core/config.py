"""Read settings from the environment, with `NAME_FILE` variants for secrets.

A setting that is present but unusable stops the process with one line naming the variable
(`ConfigError` is a SystemExit: `manage.py check`, a worker or the web server exits with status 1 and
that line, never a traceback). A value read from a `_FILE` is never repeated in the message: such
files hold secrets.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

INT_CEILING = 2**31 - 1  # no count or duration here needs more; beyond it expiries and timers overflow


class ConfigError(SystemExit):
    """A setting is present but unusable; the message names it and is the process's last word."""

    def __init__(self, message: str):
        super().__init__(f"configuration error: {message}")


def _read(name: str) -> tuple[str, bool]:
    """(raw value, whether it came from NAME_FILE); an unreadable file is a ConfigError."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text(encoding="utf-8").strip(), True
        except OSError as exc:
            raise ConfigError(f"{name}_FILE={file_name!r} cannot be read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{name}_FILE={file_name!r} is not UTF-8 text") from None
    return os.environ.get(name, ""), False


def _shown(name: str, raw: str, from_file: bool) -> str:
    """How a bad value is named in a message: NAME='value', or only where it came from when it is a file's."""
    return f"{name} (from {name}_FILE)" if from_file else f"{name}={raw[:60]!r}"


def env(name: str, default: str = "") -> str:
    """Return NAME, or the stripped contents of the file named by NAME_FILE, or the default."""
    value, _ = _read(name)
    return value if value != "" else default


def env_float(name: str, default: float, minimum: float | None = None, maximum: float | None = None) -> float:
    """Return a finite float setting, checked against its bounds."""
    raw, from_file = _read(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{_shown(name, raw, from_file)} is not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{_shown(name, raw, from_file)} is not a finite number")
    _check_bounds(name, value, minimum, maximum)
    return value


def env_bool(name: str, default: bool = False) -> bool:
    """Return a boolean setting; accepts 1/0, true/false, yes/no, on/off."""
    raw, from_file = _read(name)
    if not raw:
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{_shown(name, raw, from_file)} is not a boolean (use true or false)")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = INT_CEILING) -> int:
    """Return an integer setting, checked against its bounds (at most INT_CEILING unless told otherwise)."""
    raw, from_file = _read(name)
    if not raw:
        return default
    text = raw.strip()
    if not (text.isascii() and text.lstrip("+-").isdigit()) or len(text) > 30:
        raise ConfigError(f"{_shown(name, raw, from_file)} is not an integer")
    value = int(text)
    _check_bounds(name, value, minimum, maximum)
    return value


def _check_bounds(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} is below the minimum of {minimum}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name}={value} is above the maximum of {maximum}")


def env_list(name: str, default: str) -> list[str]:
    """Return a comma-separated setting as a list of non-empty items."""
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def secret_from_var(name: str, var_dir: Path, file_name: str) -> str:
    """Return the secret NAME, or one kept in var_dir/file_name, created on first use (demo default)."""
    value = env(name, "")
    if value:
        return value
    path = var_dir / file_name
    try:
        if path.exists():
            return path.read_text(encoding="utf-8").strip()
        import secrets

        var_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(48)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(value)
    except OSError as exc:
        raise ConfigError(f"{name} is not set and {str(path)!r} cannot be used: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{name} is not set and {str(path)!r} is not UTF-8 text") from None
    return value


DEMO_FILE = "demo-services.env"  # in MONITOR_VAR_DIR: where `make demo` listens (no secrets), KEY=value lines


def demo_defaults(var_dir: Path) -> dict[str, str]:
    """Where the demo that ran from this var directory listens: the defaults of what the environment does not set,
    so a command run in another shell (manage.py import_devices) finds the demo's Redis and InfluxDB."""
    try:
        text = (var_dir / DEMO_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return {name.strip(): value.strip() for name, value in pairs}
