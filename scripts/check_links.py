#!/usr/bin/env python3
"""Checks that every relative link in the project's Markdown resolves: the file exists and, where the link names an
anchor (`file.md#heading`, `#heading`), a heading of that file has that GitHub anchor.

Usage: scripts/check_links.py [ROOT]     (default: the repository, this script's parent folder)
       scripts/check_links.py --self-test (checks the checker on a folder with a good and a broken link of each kind)

Checked: every *.md under ROOT except build, venv and fuzzing output folders and fuzz/Shared (symlinks into
Sources). Links to http(s), mailto and other schemes are not followed (no network). Links inside code spans and
fenced code blocks are text, not links. Exits 1 naming each broken link as `file:line: target: why`.
Python standard library only, so `make test` can run it before anything is installed or built.
"""

import os
import re
import sys
import tempfile
import unicodedata

SKIPPED_DIRS = {".git", ".build", ".swiftpm", "node_modules", "__pycache__"}
SKIPPED_PATHS = {"fuzz/Shared", "fuzz/out", "fuzz/artifacts", "bench/out"}

# An inline link or image: [text](target) or [text](target "title"); the text may hold one level of brackets.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A reference definition: [label]: target
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root):
    """Every Markdown file under root that the check covers, as paths relative to root, sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        rel_folder = "" if rel_folder == "." else rel_folder.replace(os.sep, "/")
        dirs[:] = sorted(
            d for d in dirs
            if d not in SKIPPED_DIRS and not d.startswith(".build") and not d.startswith(".venv")
            and (f"{rel_folder}/{d}" if rel_folder else d) not in SKIPPED_PATHS)
        found += [f"{rel_folder}/{f}" if rel_folder else f for f in files if f.endswith(".md")]
    return sorted(found)


def strip_code_spans(line):
    """The line with `code spans` blanked, so a link written as an example is not checked."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", lambda m: " " * len(m.group(0)), line)


def text_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        opening = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        yield number, line


def slug(heading):
    """GitHub's anchor for a heading: inline markup dropped, lower case, punctuation removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors on its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = []
    for ch in text:
        if ch in "-_ " or unicodedata.category(ch)[0] in "LNM":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def anchors(path, cache={}):
    """Every anchor a Markdown file offers: its headings' slugs (repeats numbered -1, -2, as GitHub does) and any
    explicit <a name=…> / <a id=…>."""
    if path not in cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in text_lines(text):
            found.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def links(text):
    """(line number, target) of every link and image in the Markdown text, outside code."""
    for number, line in text_lines(text):
        line = strip_code_spans(line)
        for m in LINK.finditer(line):
            yield number, m.group(1)
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)


def problem(root, source, target):
    """Why `target`, linked from `source` (relative to root), does not resolve; None when it does."""
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?")[0]
    if path_part.startswith("/"):
        resolved = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
    elif path_part:
        resolved = os.path.normpath(os.path.join(root, os.path.dirname(source), path_part))
    else:
        resolved = os.path.join(root, source)
    rel = os.path.relpath(resolved, root)
    if rel.startswith(".."):
        return "points outside the repository"
    if not os.path.exists(resolved):
        return f"no such file: {rel}"
    if anchor and resolved.endswith(".md"):
        if os.path.isdir(resolved):
            return f"{rel} is a folder, which has no headings"
        if anchor not in anchors(resolved):
            return f"no heading in {rel} has the anchor #{anchor}"
    return None


def check(root):
    """Every broken link under root, as `file:line: target: why` lines."""
    broken = []
    for source in markdown_files(root):
        with open(os.path.join(root, source), encoding="utf-8") as f:
            text = f.read()
        for number, target in links(text):
            why = problem(root, source, target)
            if why:
                broken.append(f"{source}:{number}: {target}: {why}")
    return broken


SELF_TEST_FILES = {
    "README.md": "# Top\n\n## The window's chart\n\n[ok](docs/a.md) [ok](docs/a.md#a-heading-with-code) "
    "[ok](#the-windows-chart) ![ok](docs/p.png) [web](https://example.org/nothing) `[code](nowhere.md)`\n\n"
    "```\n[fenced](nowhere.md)\n```\n",
    "docs/a.md": "# A heading with `code`\n\n## Twice\n\n## Twice\n\n[ok](#twice-1) [ok](../README.md#top) "
    "[ok](../src/)\n",
    "docs/p.png": "",
    "src/x.txt": "",
    "docs/broken.md": "# Broken\n\n[missing file](gone.md)\n[missing anchor](a.md#no-such-heading)\n"
    "[missing local anchor](#nope)\n\n[missing reference]: ../nowhere.txt\n",
}
SELF_TEST_EXPECTED = [
    "docs/broken.md:3: gone.md: no such file: docs/gone.md",
    "docs/broken.md:4: a.md#no-such-heading: no heading in docs/a.md has the anchor #no-such-heading",
    "docs/broken.md:5: #nope: no heading in docs/broken.md has the anchor #nope",
    "docs/broken.md:7: ../nowhere.txt: no such file: nowhere.txt",
]


def self_test():
    """Checks the checker: a folder with good links of every kind and four broken ones must yield exactly those."""
    with tempfile.TemporaryDirectory() as root:
        for name, content in SELF_TEST_FILES.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(content)
        found = check(root)
    if found != SELF_TEST_EXPECTED:
        print("check_links self-test failed: expected", *SELF_TEST_EXPECTED, "found", *found, sep="\n  ")
        return 1
    print(f"check_links self-test: {len(found)} broken links found, as expected")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    broken = check(root)
    for line in broken:
        print(line)
    files = len(markdown_files(root))
    if broken:
        print(f"check_links: {len(broken)} broken links in {files} Markdown files", file=sys.stderr)
        return 1
    print(f"check_links: every relative link in {files} Markdown files resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
