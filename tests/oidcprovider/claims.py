"""The provider's claims: the standard profile and email, and a `groups` scope with the user's group names."""

from oidc_provider.lib.claims import ScopeClaims


def userinfo(claims, user):
    claims.update(
        preferred_username=user.username, email=user.email, given_name=user.first_name, family_name=user.last_name
    )
    return claims


class GroupsClaims(ScopeClaims):
    info_groups = ("Groups", "The groups you belong to.")

    def scope_groups(self):
        return {"groups": sorted(self.user.groups.values_list("name", flat=True))}
