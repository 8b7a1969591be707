"""WSGI entry point for gunicorn."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from collectors.procs import GC_THRESHOLDS

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 -- import every view now, so the freeze below covers them
# What is loaded now lives as long as the process: keep it out of the garbage collector's full passes, which
# otherwise walk it again every few thousand objects a request makes (a page's 20 graphs: 67 ms -> 35 ms a request,
# docs/performance.md).
gc.freeze()
# A request's thousands of short-lived rows and tuples have no cycles (reference counting frees them): collect young
# objects every 50,000 new containers instead of 700, as pollers do (collectors/procs.py; a cold page's reads: 10 %
# less CPU, measured in process).
gc.set_threshold(*GC_THRESHOLDS)
