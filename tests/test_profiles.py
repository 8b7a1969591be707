"""Profiles as data: validation with file and field, parsing device strings, and the shipped profiles."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from collectors.metrics import ValueProblem, to_number
from collectors.profiles import BUILTIN_DIR, Metric, ProfileError, load_profiles, load_profiles_collecting
from collectors.snmptypes import SnmpValue
from monitor.devices import profiles as monitor_profiles

CPU_OLD = "    5 Secs ( 96.4918%)   60 Secs ( 54.2271%)  300 Secs ( 38.2591%)"
CPU_NEW = "5 Sec (6.99%),    1 Min (6.72%),   5 Min (9.06%)"


def test_shipped_profiles_load_without_problems():
    profiles, errors = load_profiles_collecting([BUILTIN_DIR])
    assert errors == []
    for name in ("generic", "net-snmp-host", "dell-powerconnect-62xx", "dell-equallogic", "synology-dsm"):
        assert name in profiles and not profiles[name].abstract
    assert monitor_profiles.problems() == []


@pytest.mark.parametrize(
    ("text", "pick", "expected"),
    [(CPU_OLD, 0, 96.4918), (CPU_OLD, 1, 54.2271), (CPU_OLD, 2, 38.2591), (CPU_NEW, 1, 6.72), (CPU_NEW, 2, 9.06)],
)
def test_powerconnect_cpu_strings_parse_in_both_formats(text, pick, expected):
    profile = load_profiles([BUILTIN_DIR])["dell-powerconnect-62xx"]
    metric = next(m for m in profile.scalars if m.name == "cpu_util")
    metric = Metric(**{**metric.__dict__, "pick": pick})
    assert to_number(SnmpValue("octets", text.encode()), metric) == pytest.approx(expected)


def test_a_number_where_a_string_is_expected_is_refused():
    profile = load_profiles([BUILTIN_DIR])["dell-powerconnect-62xx"]
    metric = next(m for m in profile.scalars if m.name == "cpu_util")
    with pytest.raises(ValueProblem, match="expected a string"):
        to_number(SnmpValue("int", 5), metric)  # .4.4.0 is an integer on the newer FASTPATH MIB
    with pytest.raises(ValueProblem, match="does not match"):
        to_number(SnmpValue("octets", b"\xff\xfe garbage"), metric)


BROKEN = {
    "bad-yaml.yaml": "name: x\n  : [",
    "bad-type.yaml": "name: bad-type\nmetrics:\n  - {name: cpu, oid: 1.3.6.1.2.1.1.3.0, type: gauje}\n",
    "bad-oid.yaml": "name: bad-oid\nmetrics:\n  - {name: cpu, oid: 'iso.3.6'}\n",
    "bad-regex.yaml": "name: bad-regex\nmetrics:\n  - {name: cpu, oid: 1.3.6.1.2.1.1.3.0, parse: '(['}\n",
    "bad-extends.yaml": "name: bad-extends\nextends: [nowhere]\n",
    "bad-field.yaml": "name: bad-field\nmatchs: {}\n",
    "bad-graph.yaml": "name: bad-graph\ngraphs: [no_such_template]\n",
}


def test_every_broken_profile_is_reported_with_its_file_and_field(tmp_path: Path, settings):
    for name, text in BROKEN.items():
        (tmp_path / name).write_text(text)
    settings.MONITOR_PROFILE_DIRS = [str(tmp_path)]
    problems = "\n".join(monitor_profiles.problems())
    assert "bad-yaml.yaml: not valid YAML" in problems
    assert "bad-type.yaml: metrics[0].type: 'gauje' is not one of" in problems
    assert "bad-oid.yaml: metrics[0].oid: 'iso.3.6' is not a numeric OID" in problems
    assert "bad-regex.yaml: metrics[0].parse: bad regular expression" in problems
    assert "bad-extends.yaml: extends: no profile named 'nowhere'" in problems
    assert "bad-field.yaml: unknown field 'matchs'" in problems
    assert "bad-graph.yaml: graphs: template 'no_such_template' is not a known graph template" in problems
    with pytest.raises(SystemCheckError, match=r"bad-type\.yaml"):
        call_command("check")
    with pytest.raises(ProfileError):
        load_profiles([tmp_path])


def test_an_administrator_profile_overrides_a_builtin_one(tmp_path: Path):
    (tmp_path / "mine.yaml").write_text(
        "name: dell-equallogic\ndescription: site copy\nextends: [_if-mib]\n"
        "match: {sys_object_id: [1.3.6.1.4.1.12740]}\n"
    )
    profiles = load_profiles([BUILTIN_DIR, tmp_path])
    assert profiles["dell-equallogic"].description == "site copy"
    assert profiles["dell-equallogic"].path.endswith("mine.yaml")
