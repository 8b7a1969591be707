"""Sign-in with directory accounts over LDAP (django-auth-ldap), configured from the environment.

Directory groups are mirrored into Django groups at every login (a user who left a group loses it), so the
trees granted to a group (Tree.read_groups, in the admin) are what its members read: directory groups map to
tree read permissions without a table of our own. Local accounts keep working beside it.
"""

from __future__ import annotations

from monitor.core.config import ConfigError, env, env_bool, env_int

BACKEND = "monitor.core.ldap_backend.DirectoryBackend"  # its get_user honours is_active; it adopts no other account

GROUP_TYPES = {
    "groupOfNames": ("GroupOfNamesType", "groupOfNames"),
    "groupOfUniqueNames": ("GroupOfUniqueNamesType", "groupOfUniqueNames"),
    "posixGroup": ("PosixGroupType", "posixGroup"),
}


def ldap_settings() -> dict:
    """AUTH_LDAP_* settings (and whether LDAP is on) from MONITOR_LDAP_*; {} when MONITOR_LDAP_URI is unset."""
    uri = env("MONITOR_LDAP_URI", "")
    if not uri:
        return {}
    if not uri.startswith(("ldap://", "ldaps://")):
        raise ConfigError(f"MONITOR_LDAP_URI={uri[:60]!r} must start with ldap:// or ldaps://")
    import ldap
    from django_auth_ldap import config

    user_base = env("MONITOR_LDAP_USER_BASE", "")
    group_base = env("MONITOR_LDAP_GROUP_BASE", "")
    if not user_base:
        raise ConfigError("MONITOR_LDAP_USER_BASE is needed with MONITOR_LDAP_URI (e.g. ou=people,dc=example,dc=org)")
    kind = env("MONITOR_LDAP_GROUP_TYPE", "groupOfNames")
    if kind not in GROUP_TYPES:
        raise ConfigError(f"MONITOR_LDAP_GROUP_TYPE={kind[:40]!r} is not one of {', '.join(GROUP_TYPES)}")
    group_class, object_class = GROUP_TYPES[kind]
    found = {
        "AUTH_LDAP_SERVER_URI": uri,
        "AUTH_LDAP_BIND_DN": env("MONITOR_LDAP_BIND_DN", ""),
        "AUTH_LDAP_BIND_PASSWORD": env("MONITOR_LDAP_BIND_PASSWORD", ""),
        "AUTH_LDAP_START_TLS": env_bool("MONITOR_LDAP_START_TLS", False),
        "AUTH_LDAP_USER_SEARCH": config.LDAPSearch(
            user_base, ldap.SCOPE_SUBTREE, env("MONITOR_LDAP_USER_FILTER", "(uid=%(user)s)")
        ),
        "AUTH_LDAP_USER_ATTR_MAP": {"first_name": "givenName", "last_name": "sn", "email": "mail"},
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
        "AUTH_LDAP_CONNECTION_OPTIONS": {
            ldap.OPT_NETWORK_TIMEOUT: env_int("MONITOR_LDAP_TIMEOUT_S", 5, minimum=1, maximum=60),
            ldap.OPT_REFERRALS: 0,
        },
    }
    if group_base:
        found |= {
            "AUTH_LDAP_GROUP_SEARCH": config.LDAPSearch(
                group_base, ldap.SCOPE_SUBTREE, f"(objectClass={object_class})"
            ),
            "AUTH_LDAP_GROUP_TYPE": getattr(config, group_class)(),
            "AUTH_LDAP_MIRROR_GROUPS": True,  # directory groups become Django groups: trees are granted to them
            "AUTH_LDAP_FIND_GROUP_PERMS": False,
        }
        flags = {
            "is_staff": env("MONITOR_LDAP_STAFF_GROUP", ""),
            "is_superuser": env("MONITOR_LDAP_SUPERUSER_GROUP", ""),
        }
        if any(flags.values()):
            found["AUTH_LDAP_USER_FLAGS_BY_GROUP"] = {flag: dn for flag, dn in flags.items() if dn}
    return found
