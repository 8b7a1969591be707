"""Published scaling figures of the anchors that cannot run here (no PHP stack): quoted with sources, not measured."""

from __future__ import annotations

PUBLISHED = [
    {
        "tool": "Cacti + spine + boost",
        "figure": 'large sites: "well over one million Data Sources" every 5 minutes; boost caches RRD updates in '
        "MySQL and writes them out of band (poller_boost.php)",
        "source": "https://docs.cacti.net/Boost.md (Cacti/documentation Boost.md)",
    },
    {
        "tool": "Cacti + spine + boost",
        "figure": "a maintainer's boost run: 126,026 RRD updates in 22.4 s (about 5,600 a second), "
        "50,000 data sources per pass",
        "source": "https://github.com/Cacti/cacti/issues/2929",
    },
    {
        "tool": "Cacti + spine + boost",
        "figure": "1 main + 3 remote collectors, about 1.5 million data points every 5 minutes: boost needed "
        "about 21-25 minutes to write the RRDs with 5 processes, about 4 minutes with 20",
        "source": "https://github.com/Cacti/cacti/issues/4794",
    },
    {
        "tool": "Cacti + spine + boost",
        "figure": "4,000 devices on several pollers, 5-minute polling: boost stopped running, poller output "
        "overflowed, data lost",
        "source": "https://github.com/Cacti/cacti/issues/4958",
    },
    {
        "tool": "LibreNMS (dispatcher service, distributed pollers)",
        "figure": '"A single poller can typically handle up to 1,000+ devices, depending on factors like latency '
        'and device responsiveness"; more pollers share one database, RRDCached and Redis',
        "source": "https://docs.librenms.org/Extensions/Distributed-Poller",
    },
    {
        "tool": "LibreNMS (dispatcher service, distributed pollers)",
        "figure": "dispatcher defaults: 24 poller workers, poller frequency 300 s (5-minute polling is the "
        "normal interval; 1-minute polling needs RRD step changes)",
        "source": "https://docs.librenms.org/Extensions/Dispatcher-Service, "
        "https://docs.librenms.org/Extensions/Fast-Ping-Check",
    },
    {
        "tool": "LibreNMS (dispatcher service, distributed pollers)",
        "figure": "a user's 8-core VM: 201 devices took 2,454 s to poll, over the 300-s interval",
        "source": "https://github.com/librenms/librenms/issues/2431",
    },
]
