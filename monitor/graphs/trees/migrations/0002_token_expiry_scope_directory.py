"""API tokens gain an expiry and a scope, and directory accounts are recorded for their tokens' group checks.

Tokens made before keep working as they did (read and write) until API_TOKEN_DAYS from the upgrade. Where LDAP
sign-in is on (and OpenID Connect is not, whose accounts also lack a local password), an account with a token and
no local password signed in through the directory: it is recorded as never checked, so its next token request
reads its groups from the directory again (one that the directory no longer knows is refused).
"""

from datetime import UTC, datetime, timedelta

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import migrations, models
from django.utils import timezone

NEVER = datetime(2000, 1, 1, tzinfo=UTC)


def expire_existing(apps, schema_editor) -> None:
    ApiToken = apps.get_model("trees", "ApiToken")
    ApiToken.objects.filter(expires_at__isnull=True).update(
        expires_at=timezone.now() + timedelta(days=settings.API_TOKEN_DAYS)
    )


def record_directory_accounts(apps, schema_editor) -> None:
    if not getattr(settings, "AUTH_LDAP_SERVER_URI", "") or getattr(settings, "OIDC_RP_CLIENT_ID", ""):
        return
    ApiToken = apps.get_model("trees", "ApiToken")
    DirectoryAccount = apps.get_model("trees", "DirectoryAccount")
    users = ApiToken.objects.filter(user__password__startswith=UNUSABLE_PASSWORD_PREFIX).values_list("user_id")
    for user_id in set(u for (u,) in users):
        DirectoryAccount.objects.get_or_create(user_id=user_id, defaults={"checked_at": NEVER})


class Migration(migrations.Migration):
    dependencies = [
        ("trees", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[("read", "read-only"), ("write", "read and write")], default="write", max_length=5
            ),
        ),
        migrations.AlterField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[("read", "read-only"), ("write", "read and write")], default="read", max_length=5
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(expire_existing, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(editable=False),
        ),
        migrations.CreateModel(
            name="DirectoryAccount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("checked_at", models.DateTimeField()),
                (
                    "failed_at",
                    models.DateTimeField(blank=True, help_text="The directory's last refusal, or silence.", null=True),
                ),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="directory_account",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.RunPython(record_directory_accounts, migrations.RunPython.noop),
    ]
