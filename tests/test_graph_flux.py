"""Graph queries carry request values only in the params record, as checked literals."""

from __future__ import annotations

import pytest

from monitor import flux
from monitor.graphtemplates import TEMPLATES
from monitor.queries import Selection, build_flux

EVIL = 'x") |> drop(columns: ["_value"]) //'


@pytest.mark.parametrize("rollup", [False, True])
@pytest.mark.parametrize("windowed", [False, True])
def test_scripts_are_fixed_text_whatever_the_selection(rollup, windowed):
    single = build_flux(TEMPLATES["traffic"], Selection((("1", EVIL),)), rollup, windowed)
    summed = build_flux(TEMPLATES["traffic"], Selection((("1", EVIL), ("2", "1/g1"))), rollup, windowed)
    for script in (single, summed):
        assert EVIL not in script and "1/g1" not in script
        assert "contains(" not in script  # equality predicates only: InfluxDB pushes them down
    assert "params.i1" in summed and 'group(columns: ["_field"])' in summed


def test_bind_checks_imports_and_escapes_values():
    script = flux.bind("x = params.instance", {"instance": EVIL}, ("types",))
    assert script.startswith('import "types"\nparams = {instance: "x\\") |> drop')
    with pytest.raises(flux.FluxValueError):
        flux.bind("x", {}, ('types"\nimport "evil',))
    with pytest.raises(flux.FluxValueError):
        flux.bind("x", {"bad name": 1})
