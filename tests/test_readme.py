"""The README names only what the repository has: every file or folder it mentions, in its text or its layout, exists
(a newcomer who clones it finds each one), and nothing points outside the repository."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
EXTENSIONS = "py|sh|js|css|html|md|toml|json|lock|yml|po"
FILE = re.compile(rf"(?<![\w/.])\.?[\w-]+(?:[./][\w-]+)*(?:\.(?:{EXTENSIONS})\b|/)[\w./-]*")
TOP = {path.name for path in ROOT.iterdir()}


def tracked() -> list[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return files.split()


def named_paths() -> set[str]:
    """What the README writes as a path of ours: in backquotes and in the layout's code block."""
    found = set()
    for quoted in re.findall(r"`([^`\n]+)`", README) + re.findall(r"^```\w*\n(.*?)^```$", README, re.S | re.M):
        for path in FILE.findall(quoted):
            ours = path.split("/")[0] in TOP or re.search(r"\.\w+$", path)
            if ours and not path.startswith((".venv", ".data", "test-artifacts")):
                found.add(path.rstrip("/"))
    return found


def test_every_path_the_readme_names_exists():
    files = tracked()
    folders = {str(Path(f).parent) for f in files} | {str(p) for f in files for p in Path(f).parents}
    missing = sorted(
        path
        for path in named_paths()
        if path not in files
        and path not in folders
        and not any(f.endswith("/" + path) for f in files)
        and not any(folder.endswith("/" + path) for folder in folders)
    )
    assert not missing, f"the README names what the repository does not have: {missing}"


def test_the_readme_points_nowhere_outside_the_repository():
    assert "../" not in README
    assert README.index("## Quick start") < README.index("## Using it"), "a newcomer reads how to start first"
