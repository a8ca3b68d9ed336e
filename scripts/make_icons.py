"""Draw the app's PNG icons (static/icons/icon-192.png, icon-512.png) from static/icons/icon.svg with the Chromium
the browser tests use (Playwright, already a dev dependency): `.venv/bin/python scripts/make_icons.py`. The PNGs are
committed; run this again only when the SVG changes. The drawing is full-bleed with its mark inside the middle 80 %,
so that the same file serves as a maskable icon."""

import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("Debian's chromium is not installed: `apt-get install chromium`.")
    svg = (ICONS / "icon.svg").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        for size in (192, 512):
            page = browser.new_page(viewport={"width": size, "height": size})
            sized = svg.replace("<svg ", f"<svg width={size} height={size} ", 1)
            page.set_content(f'<body style="margin:0">{sized}</body>')
            page.screenshot(path=str(ICONS / f"icon-{size}.png"), omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
