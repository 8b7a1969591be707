"""WSGI entry point for gunicorn."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.template.loader import get_template
from django.urls import get_resolver

from collectors.procs import GC_THRESHOLDS

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
application = get_wsgi_application()
from monitor.devices.profiles import registry  # noqa: E402 -- after Django is set up
from monitor.topology import vendors  # noqa: E402

PAGES = ("monitor/device.html", "monitor/home.html", "monitor/tree.html", "monitor/graph.html")

# What a worker's first page would otherwise do on a user's time (a device page: 150 ms, docs/performance.md): import
# every view, fill reverse()'s maps, read the device profiles, compile the main pages' templates. The freeze below
# then covers it all.
get_resolver().reverse_dict  # noqa: B018 -- imports every view and fills the maps
registry()
vendors.vendor("00:00:00:00:00:00")  # reads the OUI list (130 ms) now, not on the first host search
for name in PAGES:
    get_template(name)
# What is loaded now lives as long as the process: keep it out of the garbage collector's full passes, which
# otherwise walk it again every few thousand objects a request makes (a page's 20 graphs: 67 ms -> 35 ms a request,
# docs/performance.md).
gc.freeze()
# A request's thousands of short-lived rows and tuples have no cycles (reference counting frees them): collect young
# objects every 50,000 new containers instead of 700, as pollers do (collectors/procs.py; a cold page's reads: 10 %
# less CPU, measured in process).
gc.set_threshold(*GC_THRESHOLDS)
