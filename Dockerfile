# syntax=docker/dockerfile:1
# One image for the web server, the Celery worker and beat (see docker-compose.yml).

# Browser libraries (Chart.js and friends); Django serves them from node_modules as /static/vendor/.
FROM node:20-bookworm-slim AS node
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MONITOR_VAR_DIR=/app/var
WORKDIR /app

RUN groupadd --system --gid 10001 monitor \
    && useradd --system --uid 10001 --gid monitor --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin monitor

COPY requirements.txt ./
# python-ldap (django-auth-ldap, directory sign-in) builds against OpenLDAP's headers; only its runtime stays.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libldap2-dev libsasl2-dev \
    && pip install -r requirements.txt \
    && apt-get purge -y gcc libldap2-dev libsasl2-dev && apt-get autoremove -y \
    && apt-get install -y --no-install-recommends libldap-2.5-0 libsasl2-2 \
    && rm -rf /var/lib/apt/lists/*

COPY --from=node /build/node_modules ./node_modules
# Only what runs: never var/ (demo secrets, databases), .env, .venv or .git from the build context.
COPY manage.py ./
COPY collectors ./collectors
COPY monitor ./monitor
COPY templates ./templates
COPY static ./static

# A throwaway key for this step only, so settings do not generate and store one under var/.
RUN DJANGO_SECRET_KEY=collectstatic-only-not-a-secret python manage.py collectstatic --noinput \
    && mkdir -p /app/var \
    && chown monitor:monitor /app/var

USER monitor
EXPOSE 8000
CMD ["gunicorn", "monitor.wsgi", "-b", "0.0.0.0:8000", "--workers", "4", "--threads", "4"]
