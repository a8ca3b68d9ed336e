"""The documents the code cites are in the repository: every "docs/rules.md §N" names a section that docs/rules.md
has, every "docs/architecture.md principle N" a principle docs/architecture.md states, and nothing cites the team's
working copies of the rules and of the design (RULES.md and its design sibling), which live outside it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SKIPPED = {".venv", ".git", ".data", "staticfiles", "test-artifacts", "node_modules", "__pycache__"}
SOURCES = {".py", ".html", ".jinja", ".txt", ".js", ".css", ".toml", ".cfg", ".md"}

# "docs/rules.md §7.11", "§§2-3", "§§1 and 7.11", "§§2, 4 and 5": the numbers after the section mark.
CITATION = re.compile(r"docs/rules\.md\s+§§?(\d+(?:\.\d+)?(?:\s*(?:-|–|,|and|to)\s*\d+(?:\.\d+)?)*)")


def sources() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.suffix in SOURCES and path.is_file() and not SKIPPED & set(path.relative_to(ROOT).parts)
    ]


def sections() -> set[str]:
    """The numbers of docs/rules.md's headings: "4" for "## 4. Low PG…", "7.11" for "### 7.11 Limits…"."""
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", RULES.read_text(), re.MULTILINE))


def test_every_citation_of_the_rules_names_a_section_they_have():
    known, cited = sections(), {}
    assert {"1", "4", "7.1", "7.14"} <= known, known
    for path in sources():
        for match in CITATION.finditer(path.read_text(errors="replace")):
            for number in re.findall(r"\d+(?:\.\d+)?", match[1]):
                cited.setdefault(number, []).append(str(path.relative_to(ROOT)))
    assert len(cited) > 10, "the code cites the rules by section: the pattern no longer finds them"
    missing = {number: paths for number, paths in cited.items() if number not in known}
    assert not missing, f"cited sections that docs/rules.md does not have: {missing}"


def test_nothing_cites_a_copy_of_the_rules_outside_the_repository():
    citing = [
        str(path.relative_to(ROOT))
        for path in sources()
        if path != Path(__file__) and re.search(r"\bRULES\.md", path.read_text(errors="replace"))
    ]
    assert citing == [], f"cite docs/rules.md instead: {citing}"


def test_every_principle_cited_is_one_the_architecture_states():
    stated = set(re.findall(r"^(\d+)\. \*\*", ARCHITECTURE.read_text(), re.MULTILINE))
    assert {"1", "3", "8", "10"} <= stated, stated
    cited = {
        (number, str(path.relative_to(ROOT)))
        for path in sources()
        for number in re.findall(r"docs/architecture\.md principles? (\d+)", path.read_text(errors="replace"))
    }
    assert len(cited) >= 5, "the code cites the principles by number: the pattern no longer finds them"
    assert {(number, path) for number, path in cited if number not in stated} == set()


def test_nothing_cites_the_design_outside_the_repository():
    citing = [
        str(path.relative_to(ROOT))
        for path in sources()
        if path != Path(__file__) and re.search(r"\bDESIGN(\.md| principle)", path.read_text(errors="replace"))
    ]
    assert citing == [], f"cite docs/architecture.md instead: {citing}"
