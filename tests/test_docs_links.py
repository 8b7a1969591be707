"""The docs a newcomer reads hold together: every relative link and image in README.md, docs/ and the bench history
points at a file that exists, and the README stays two screens long."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md"), *(REPO / "bench" / "results").glob("*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
README_MAX_LINES = 120


def relative_targets(text: str) -> list[str]:
    """The link and image targets of a markdown text that name a file of the repository (no URL, no bare anchor,
    nothing inside a code block), without their anchor."""
    text = FENCE.sub("", text)
    targets = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue
        targets.append(target.split("#", 1)[0])
    return targets


def test_the_link_reader_finds_links_and_images_and_skips_the_rest():
    text = (
        'See [install](docs/install.md#try-it-the-demo) and ![home](docs/ui/home.png "the home page").\n'
        "[web](https://example.org/x.md) [here](#settings) [mail](mailto:a@b.c)\n"
        "```\n[in code](not/a/link.md)\n```\n"
    )
    assert relative_targets(text) == ["docs/install.md", "docs/ui/home.png"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path):
    missing = [t for t in relative_targets(page.read_text(encoding="utf-8")) if not (page.parent / t).exists()]
    assert not missing, f"{page.relative_to(REPO)} links to files that do not exist: {missing}"


def test_the_docs_are_found():
    names = {p.relative_to(REPO).as_posix() for p in PAGES}
    assert {"README.md", "docs/README.md", "docs/install.md", "bench/results/HISTORY.md"} <= names


def test_readme_fits_two_screens():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < README_MAX_LINES, f"README.md has {lines} lines; the details belong in docs/ (docs/README.md)"
