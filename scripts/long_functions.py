#!/usr/bin/env python3
"""Lists Swift functions (func, init, computed bodies opened by `func`/`init`) and files longer than a limit.

Usage: scripts/long_functions.py [--limit 60] [--file-limit 400] [paths...]   (default: Sources)
Counts lines from the declaration to its closing brace, by brace matching that skips strings and comments.
Good enough for a size review, not a parser: multi-line string literals with unbalanced braces would confuse it.
"""
import argparse
import pathlib
import re

DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|class|'
                  r'override|final|mutating|nonisolated|convenience|required|@MainActor)\s+)*(func\s+[^\s(<]+|init[?!]?)\s*[(<]')


def strip(line, in_block):
    """The line without strings and comments; returns (code, still inside a /* */ comment)."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            end = line.find('*/', i)
            if end < 0:
                return ''.join(out), True
            i, in_block = end + 2, False
        elif line.startswith('//', i):
            break
        elif line.startswith('/*', i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == '\\' else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return ''.join(out), in_block


def long_functions(path, limit):
    lines = path.read_text(encoding='utf-8').splitlines()
    code, in_block = [], False
    for line in lines:
        c, in_block = strip(line, in_block)
        code.append(c)
    found = []
    for start, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            for ch in code[end]:
                if ch == '{':
                    depth, opened = depth + 1, True
                elif ch == '}':
                    depth -= 1
            if opened and depth <= 0:
                break
            if not opened and end > start and code[end].strip().startswith(('func ', 'var ', 'let ')):
                break  # a protocol requirement: no body
        if opened:
            n = end - start + 1
            if n > limit:
                found.append((n, f'{path}:{start + 1}', m.group(1)))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--limit', type=int, default=60)
    p.add_argument('--file-limit', type=int, default=400)
    p.add_argument('paths', nargs='*', default=['Sources'])
    a = p.parse_args()
    found = []
    for root in a.paths:
        root = pathlib.Path(root)
        for f in sorted([root] if root.is_file() else root.rglob('*.swift')):
            found += long_functions(f, a.limit)
            n = len(f.read_text(encoding='utf-8').splitlines())
            if n > a.file_limit:
                found.append((n, str(f), '(file)'))
    for n, where, name in sorted(found, reverse=True):
        print(f'{n:4d}  {where}  {name}')


if __name__ == '__main__':
    main()
