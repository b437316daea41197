#!/usr/bin/python3
"""Checks the Markdown reference: every relative link and #anchor resolves, and the result
tables of README.md and bench/README.md match bench/results/ (bench/publish_results.py --check).

Usage: scripts/check-docs.py [ROOT]      (exit 1 naming each broken link)
Files: every tracked *.md (git ls-files). Links: [text](target) outside code blocks and code
spans; http(s)/mailto links are not fetched. Anchors follow GitHub's rule: the heading in lower
case, punctuation other than '-' and '_' dropped, spaces as '-'.
"""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def prose_lines(path):
    """(number, line) of the lines outside fenced code blocks, code spans removed."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", line)


def anchors(path):
    """The #fragments path's headings answer to (code spans slugged as their text; a repeated
    heading gets -1, -2, ...)."""
    found, seen, fenced = set(), {}, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6}\s", line):
            base = slug(line.lstrip("#").replace("`", ""))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check(root):
    files = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True,
                           check=True).stdout.split()
    broken = []
    for name in files:
        path = root / name
        for number, line in prose_lines(path):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue
                file_part, _, fragment = target.partition("#")
                dest = (path.parent / file_part).resolve() if file_part else path
                if not dest.exists():
                    broken.append(f"{name}:{number}: {target}: no such file")
                elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                    broken.append(f"{name}:{number}: {target}: no heading '#{fragment}' "
                                  f"in {file_part or name}")
    return broken


def main():
    default = pathlib.Path(__file__).parent.parent
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else default).resolve()
    broken = check(root)
    for line in broken:
        print(line)
    publish = root / "bench" / "publish_results.py"
    tables = subprocess.run([sys.executable, str(publish), "--root", str(root), "--check"],
                            cwd=root)
    stale = "" if tables.returncode == 0 else "; result tables stale"
    print(f"doc links: {len(broken)} broken{stale}")
    sys.exit(1 if broken or tables.returncode else 0)


if __name__ == "__main__":
    main()
