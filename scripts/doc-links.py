#!/usr/bin/env python3
"""Checks the links of docs/ and README.md: each relative link names a file of the
repository (and, with `#anchor`, a heading of that file), and none leaves the repository
(the docs never link outside it). Prints each bad link; exits 1 if there is one."""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading):
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    return {slug(line.lstrip("#")) for line in path.read_text().splitlines() if line.startswith("#")}


def main():
    bad = []
    files = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    for doc in files:
        in_code = False
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                where = f"{doc.relative_to(ROOT)}:{n}: {target}"
                if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
                    bad.append(f"{where}: links outside the repository")
                    continue
                path, _, anchor = target.partition("#")
                file = (doc.parent / path).resolve() if path else doc
                if not file.exists() or ROOT not in file.parents and file != ROOT:
                    bad.append(f"{where}: no such file in the repository")
                elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                    bad.append(f"{where}: no heading #{anchor} in {file.relative_to(ROOT)}")
    for b in bad:
        print(b)
    print(f"doc links: {len(bad)} bad in {len(files)} files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
