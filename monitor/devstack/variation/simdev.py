# snmpsim variation module "simdev": counters that move at known rates, an uptime that can reboot.
#
# snmpsim exec()s this file and injects `recordContext` per OID. Record values look like
#   r=125000,a=0.3,p=3600,o=1000,b=64,k=port1-in   (a counter: bytes/s, sine amplitude and period,
#                                                   initial value, width in bits, control key)
#   ...,f=57600                                    (the sine's phase: rate*(1 + a*sin(2*pi*(t+f)/p)))
#   ...,s=5000,sp=3600,so=1200,sd=300              (a pulse: s more per second from so to so+sd of every sp,
#                                                   riding on the record's sine as its rate does)
#   u=1                                            (sysUpTime in TimeTicks since the agent's epoch)
#   g=42,k=temp1                                   (a gauge, overridable by key)
#   g=2,gs=65,sp=3600,so=1200,sd=300               (a gauge that reads gs during the pulse)
#   g=0,gr=100000,sp=86400,so=46800,sd=7200        (a gauge that rises from 0 to gr through the pulse: a progress)
# A JSON control file named by $SIMDEV_CONTROL (re-read when it changes) can hold
#   {"epoch": <unix time of the last "boot">, "rates": {key: [[since, bytes_per_s], ...]},
#    "gauges": {key: value}, "pulse": {"period": s, "offset": s, "duration": s}}
# ("pulse" moves every record's pulse, so a test can have the hourly spike now.)
# so tests can reboot an agent (new epoch: uptime and counters restart) and drive rates and gauges.
import json
import math
import os
import time

BOOTED = time.time()
_control = {"mtime": None, "data": {}}


def init(**context):
    pass


def shutdown(**context):
    pass


def _load_control():
    path = os.environ.get("SIMDEV_CONTROL")
    if not path:
        return {}
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return _control["data"]
    if mtime != _control["mtime"]:
        try:
            with open(path) as handle:
                _control["data"] = json.load(handle)
            _control["mtime"] = mtime
        except (OSError, ValueError):
            pass
    return _control["data"]


def _params(value):
    params = recordContext.get("params")
    if params is None:
        text = value.decode() if isinstance(value, bytes) else str(value)
        params = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
        recordContext["params"] = params
    return params


def _base_integral(rate, amplitude, period, t0, t1, phase=0.0):
    """Bytes moved between t0 and t1 at rate*(1 + amplitude*sin(2*pi*(t+phase)/period))."""
    total = rate * (t1 - t0)
    if amplitude and period:
        w = 2 * math.pi / period
        total += rate * amplitude / w * (math.cos(w * (t0 + phase)) - math.cos(w * (t1 + phase)))
    return total


def _pulse(params, control):
    """(period, offset, duration) of the record's pulse, as moved by the control file; None without one."""
    if "sd" not in params:
        return None
    moved = control.get("pulse") or {}
    return (
        float(moved.get("period", params.get("sp", 3600))),
        float(moved.get("offset", params.get("so", 0))),
        float(moved.get("duration", params["sd"])),
    )


def _pulse_time(pulse, t):
    """Seconds of pulse between the epoch and t."""
    period, offset, duration = pulse
    k = math.floor((t - offset) / period)
    return k * duration + min(max(t - offset - k * period, 0.0), duration)


def _cos_sum(x, y, first, last):
    """cos(x + k*y) summed over k = first..last, in closed form (a day holds thousands of pulses)."""
    count = last - first + 1
    if count <= 0:
        return 0.0
    half = math.sin(y / 2)
    if abs(half) < 1e-12:
        return count * math.cos(x + first * y)
    return math.sin(count * y / 2) / half * math.cos(x + (first + last) * y / 2)


def pulse_integral(pulse, amplitude, period, phase, t0, t1):
    """Seconds of pulse between t0 and t1, each weighted by the record's sine 1 + a*sin(2*pi*(t+phase)/period):
    a pulse that rides on the day's shape as the base rate does, so a burst of latency per operation reads the
    same at noon and at night."""
    plain = _pulse_time(pulse, t1) - _pulse_time(pulse, t0)
    if not (amplitude and period) or t1 <= t0:
        return plain
    every, offset, duration = pulse
    w = 2 * math.pi / period

    def wave(a, b):  # the integral of sin(w*(u + phase)) from a to b
        return (math.cos(w * (a + phase)) - math.cos(w * (b + phase))) / w if b > a else 0.0

    first, last = math.floor((t0 - offset) / every), math.floor((t1 - offset) / every)
    total = 0.0
    for k in {first, last}:  # the pulses at the ends, cut to [t0, t1]
        begin = k * every + offset
        total += wave(max(begin, t0), min(begin + duration, t1))
    if last - first > 1:  # the whole pulses between them
        step = w * every
        total += (
            _cos_sum(w * (offset + phase), step, first + 1, last - 1)
            - _cos_sum(w * (offset + duration + phase), step, first + 1, last - 1)
        ) / w
    return plain + amplitude * total


def in_pulse(pulse, t):
    return pulse is not None and _pulse_time(pulse, t + 1e-6) - _pulse_time(pulse, t) > 0


def counter_value(params, control, now):
    epoch = float(control.get("epoch") or BOOTED)
    start = min(epoch, now)
    rate = float(params.get("r", 0))
    amplitude = float(params.get("a", 0))
    period = float(params.get("p", 0))
    segments = sorted(control.get("rates", {}).get(params.get("k", ""), []))
    total = 0.0
    cursor = start
    current = None  # None: the record's own (possibly sinusoidal) rate
    for since, seg_rate in segments:
        since = max(float(since), start)
        if since >= now:
            break
        if since > cursor:
            total += _segment(current, rate, amplitude, period, cursor, since, float(params.get("f", 0)))
            cursor = since
        current = seg_rate
    total += _segment(current, rate, amplitude, period, cursor, now, float(params.get("f", 0)))
    pulse = _pulse(params, control)
    if pulse is not None and not segments:
        phase = float(params.get("f", 0))
        total += float(params.get("s", 0)) * pulse_integral(pulse, amplitude, period, phase, start, now)
    bits = int(params.get("b", 64))
    return int(float(params.get("o", 0)) + total) % (2**bits)


def _segment(override, rate, amplitude, period, t0, t1, phase=0.0):
    if override is None:
        return _base_integral(rate, amplitude, period, t0, t1, phase)
    return float(override) * (t1 - t0)


def variate(oid, tag, value, **context):
    if not context["nextFlag"] and not context["exactMatch"]:
        return context["origOid"], tag, context["errorStatus"]
    params = _params(value)
    control = _load_control()
    now = time.time()
    if "u" in params:
        epoch = float(control.get("epoch") or BOOTED)
        return oid, tag, int(max(0.0, now - epoch) * 100) % (2**32)
    if "g" in params:
        return oid, tag, gauge_value(params, control, now)
    return oid, tag, counter_value(params, control, now)


def gauge_value(params, control, now):
    """A gauge's value at `now`: the control file's for its key, else `gs` during its pulse, or `gr` times the share
    of the pulse gone by (a progress), else `g`."""
    gauge = control.get("gauges", {}).get(params.get("k", ""), params["g"])
    pulse = _pulse(params, control)
    if in_pulse(pulse, now):
        period, offset, duration = pulse
        if "gs" in params:
            gauge = params["gs"]
        elif "gr" in params:
            gauge = float(params["gr"]) * ((now - offset) % period) / duration
    return int(float(gauge))
