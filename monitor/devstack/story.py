"""The demo's past as its simulated agents serve the present, so the history written at first start tells the same
story as the live polls: each port's sine and the busy switch port's burst (near line rate, discards, pause
frames), the array's daily shape of IOPS and throughput, and the read latency spike each hour (fleet.SPIKE).

monitor/devstack/history.py asks `Story.past` for each sample; what a story does not model (sensors, CPU...)
keeps history.py's generic shape."""

from __future__ import annotations

import math

from collectors.samples import Sample
from monitor.devstack.fleet import SimDevice, SimPort

PULSED = ("out_bps", "out_discards", "in_pause_pps")  # a port's fields its burst sets (fleet.powerconnect_6248)
IO_RATES = {"read_iops", "write_iops", "read_bps", "write_bps"}  # an array's fields that follow the day


def sine(t: float, amplitude: float, period: float, phase: float = 0.0) -> float:
    """The factor simdev applies to a record's rate at `t`: 1 + a sin(2 pi (t + phase) / period)."""
    return 1.0 + amplitude * math.sin(2 * math.pi * (t + phase) / period) if amplitude and period else 1.0


def in_pulse(pulse: tuple[int, int, int] | None, t: float) -> bool:
    """Whether `t` falls in a recurring (period, offset, duration) burst, as simdev times it."""
    return pulse is not None and (t - pulse[1]) % pulse[0] < pulse[2]


class Story:
    """How one simulated device's series move with time; `past` rewrites a sample polled now for a moment before."""

    def __init__(self, device: SimDevice):
        self.ports: dict[str, SimPort] = {p.name: p for p in device.ports}
        self.io = device.io

    def past(self, sample: Sample, t: float) -> Sample | None:
        """The sample (polled at sample.time) as the agent would have served it at `t`; None when not modelled."""
        if sample.measurement == "interface" and sample.tags.get("port") in self.ports:
            fields = self._port(self.ports[sample.tags["port"]], sample, t)
        elif self.io is not None and sample.measurement in ("volume", "member"):
            fields = self._io(sample, t)
        else:
            return None
        return Sample(sample.measurement, dict(sample.tags), fields, t) if fields is not None else None

    @staticmethod
    def _port(port: SimPort, sample: Sample, t: float) -> dict:
        ratio = sine(t, port.amplitude, port.period_s) / sine(sample.time, port.amplitude, port.period_s)
        fields = {k: v * ratio if type(v) is float else v for k, v in sample.fields.items()}
        if port.pulse is not None:  # the burst's fields from the model: the polled one may be in or out of it
            burst = in_pulse(port.pulse, t)
            modelled = {
                "out_bps": 8.0 * (port.out_rate + (port.pulse_out_rate if burst else 0.0)),
                "out_discards": port.pulse_out_discards if burst else 0.0,
                "in_pause_pps": port.pulse_in_pause if burst else 0.0,
            }
            fields |= {k: v for k, v in modelled.items() if k in fields}
        return fields

    def _io(self, sample: Sample, t: float) -> dict | None:
        assert self.io is not None
        name = sample.tags.get(sample.measurement, "")
        latency = self.io.read_ms.get((sample.measurement, name))
        if latency is None:
            return None
        ratio = sine(t, *self.io.daily) / sine(sample.time, *self.io.daily)
        fields = {k: v * ratio if k in IO_RATES and type(v) is float else v for k, v in sample.fields.items()}
        if "read_latency_ms" in fields:
            fields["read_latency_ms"] = latency[1] if in_pulse(self.io.spike, t) else latency[0]
        return fields
