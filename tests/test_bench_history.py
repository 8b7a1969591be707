"""The bench keeps what it replaces in docs/performance.md: each rewritten or dropped section goes to the history
file, unchanged sections do not, and the history only grows."""

from pathlib import Path

from bench import history

OLD = """# Performance

- scenario 5: 2026-11-24 at aaa1111

## 5. Graphs over a year

first screen 600 ms (run of 2026-11-24)

## 6. Fault isolation

167 healthy ticks, 0 missed

## 9. Event receivers under a burst

5,000 traps stored
"""

NEW = """# Performance

- scenario 5: 2026-11-28 at bbb2222

## 5. Graphs over a year

first screen 239 ms (run of 2026-11-28)

## 6. Fault isolation

167 healthy ticks, 0 missed
"""


def test_replaced_sections_are_the_changed_and_the_dropped():
    gone = history.replaced(OLD, NEW)
    assert [heading for heading, _ in gone] == ["", "## 5. Graphs over a year", "## 9. Event receivers under a burst"]
    assert "2026-11-24 at aaa1111" in gone[0][1]
    assert gone[1][1].endswith("first screen 600 ms (run of 2026-11-24)")


def test_keep_appends_the_old_text_and_never_removes(tmp_path: Path):
    path = tmp_path / "results" / "HISTORY.md"
    path.parent.mkdir()
    path.write_text("# Benchmark history\n\nan earlier run: 1,284 ms\n", encoding="utf-8")
    assert history.keep(OLD, NEW, "on 2026-11-28 12:00 UTC at bbb2222", path) == 3
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark history\n\nan earlier run: 1,284 ms\n")
    assert "## docs/performance.md, run timestamps: replaced on 2026-11-28 12:00 UTC at bbb2222" in text
    assert "## docs/performance.md, 5. Graphs over a year: replaced on 2026-11-28 12:00 UTC at bbb2222" in text
    assert "first screen 600 ms (run of 2026-11-24)" in text
    assert "5,000 traps stored" in text
    assert "167 healthy ticks" not in text  # unchanged: still on the page, not history
    assert "239 ms" not in text  # the new figures are the page's


def test_nothing_replaced_writes_nothing(tmp_path: Path):
    path = tmp_path / "HISTORY.md"
    assert history.keep(NEW, NEW, "on 2026-11-28", path) == 0
    assert not path.exists()
