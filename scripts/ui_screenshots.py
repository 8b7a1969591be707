"""Write docs/ui/*.png, the screenshots docs/ui.md shows: the visual check (tests/test_browser_visual.py) run on its
planted demo week, its desktop screenshots kept. Run from the checkout: `.venv/bin/python scripts/ui_screenshots.py`
(needs INFLUXD like the tests; see docs/ui.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run the visual check into a scratch folder; copy its desktop screenshots into docs/ui/."""
    with tempfile.TemporaryDirectory() as scratch:
        env = os.environ | {"VISUAL_ARTIFACTS_DIR": scratch}
        test = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_browser_visual.py"]
        result = subprocess.run(test, cwd=ROOT, env=env, check=False)
        if result.returncode != 0:
            print("the visual check failed: docs/ui/ left as it was", file=sys.stderr)
            return result.returncode
        target = ROOT / "docs" / "ui"
        target.mkdir(exist_ok=True)
        for shot in sorted(Path(scratch).glob("*-desktop.png")):
            shutil.copyfile(shot, target / shot.name.replace("-desktop", ""))
            print(f"docs/ui/{shot.name.replace('-desktop', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
