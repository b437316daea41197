#!/usr/bin/python3
"""Keeps the house tidy: functions over 60 lines and files over 400 lines.

Scans the project's C and C++ sources (git ls-files) outside tests/, fuzz/, bench/ and the
kernel SIMD files (kernels/simd/, kernels/arch/, *_simd.h), and compares what is over a limit with the
allow-list scripts/house-allow.txt, which may only shrink:
  - a function or file over its limit that the list does not name fails the check;
  - a listed entry that is no longer over its limit (or no longer exists) fails too, so the
    list is trimmed in the change that fixes it.
A function is a brace body at namespace or class scope whose header has a parameter list; its
length runs from the first line of the header to the closing brace. Lambdas and local classes
count toward the function that holds them.
usage: scripts/check-house.py [--list] [--self-test]
  --list       print every function and file over its limit (the allow-list's format)
  --self-test  check the scanner on planted sources
"""
import os
import re
import subprocess
import sys

FUNCTION_LINES = 60
FILE_LINES = 400
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOW = os.path.join(ROOT, "scripts", "house-allow.txt")
SKIP = re.compile(r"^(tests|fuzz|bench|build[^/]*)/|^runtime/src/kernels/(simd|arch)/|_simd\.h$|_generated\.h$")
NOT_FUNCTION = re.compile(
    r"^\s*(namespace|class|struct|union|enum|extern|if|else|for|while|do|switch|try|catch|"
    r"return)\b|=\s*$|=\s*\{|\]\s*\(")
SCOPE = re.compile(r"^\s*(template\s*<.*>\s*)?(namespace|class|struct|union|extern)\b")


def strip_code(text):
    """Blanks comments, string and character literals and preprocessor lines (with their
    backslash continuations: a multi-line #define is not code of the function after it),
    keeping newlines, so braces count."""
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: "\n" * m.group(0).count("\n"), text)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The qualified name before the parameter list of a function header, or None."""
    header = re.sub(r"\s+", " ", header).strip()
    header = re.sub(r"^#.*", "", header)
    if "(" not in header or NOT_FUNCTION.search(header):
        return None
    depth, cut = 0, None
    for k, ch in enumerate(header):  # the first top-level '(' opens the parameter list
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth <= 0:
            cut = k
            break
    if cut is None:
        return None
    m = re.search(r"([~\w:]+(?:operator\s*\S+?)?)\s*$", header[:cut])
    return m.group(1) if m else None


def functions(text):
    """[(name, first_line, last_line)] of the functions defined in C++ source `text`."""
    code = strip_code(text)
    found, stack = [], []  # stack: 'scope' (namespace/class) or 'body'
    start = 0  # where the current declaration's text begins
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, ch in enumerate(code):
        line_of[k] = line
        if ch == "\n":
            line += 1
    for k, ch in enumerate(code):
        if ch == "{":
            in_body = any(s[0] == "body" for s in stack)
            header = code[start:k]
            header_lines = [h for h in header.split("\n") if h.strip() and not h.lstrip().startswith("#")]
            header = "\n".join(header_lines)
            if in_body:
                stack.append(("other", k))
            elif SCOPE.search(header) and "(" not in header.split("{")[0].split("=")[0]:
                stack.append(("scope", k))
            else:
                name = function_name(header)
                if name:
                    first = line_of[start + len(code[start:k]) - len(code[start:k].lstrip())]
                    stack.append(("body", k, name, first))
                else:
                    stack.append(("other", k))
            start = k + 1
        elif ch == "}":
            if stack:
                top = stack.pop()
                if top[0] == "body":
                    found.append((top[2], top[3], line_of[k]))
            start = k + 1
        elif ch == ";" and not any(s[0] in ("body", "other") for s in stack):
            start = k + 1
        elif ch == ";":
            start = k + 1
        elif ch == ":" and not any(s[0] == "body" for s in stack):
            # access specifiers (public:) end a declaration; '::' and ctor initializers do not
            before = code[start:k].strip()
            if before in ("public", "private", "protected"):
                start = k + 1
    return found


def sources():
    files = subprocess.run(["git", "ls-files", "*.c", "*.cc", "*.h", "*.cpp", "*.inc"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    return [f for f in files if not SKIP.search(f)]


def over_limits():
    entries = set()
    for path in sources():
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > FILE_LINES:
            entries.add(f"file {path}")
        for name, first, last in functions(text):
            if last - first + 1 > FUNCTION_LINES:
                entries.add(f"function {path} {name}")
    return entries


def lengths_report():
    for path in sources():
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        if text.count("\n") > FILE_LINES:
            print(f"file {path}  # {text.count(chr(10))} lines")
        for name, first, last in functions(text):
            if last - first + 1 > FUNCTION_LINES:
                print(f"function {path} {name}  # {last - first + 1} lines, from line {first}")


def read_allow():
    allowed = set()
    with open(ALLOW) as f:
        for raw in f:
            entry = raw.split("#", 1)[0].strip()
            if entry:
                allowed.add(re.sub(r"\s+", " ", entry))
    return allowed


def self_test():
    body = "\n".join(f"  x += {i};" for i in range(61))
    src = ("// a comment with { braces\nnamespace a {\nnamespace {\n"
           f"int Long(int x) {{\n{body}\n  return x;\n}}\n"
           "#define STEP(r) \\\n  \"add %[a], %[a], \" #r \"\\n\\t\" \\\n  \"nop\\n\\t\"\n"
           "int Short(int x) { return x; }\n"
           "struct S {\n  int Member(int y) const {\n    return y;\n  }\n};\n"
           f"template <class T>\nvoid Lambda(T t) {{\n  auto f = [&](int q) {{\n{body}\n  }};\n}}\n"
           'const char* kText = "}}}{";\n'
           f"Status S::Qualified(int a,\n                     int b) const {{\n{body}\n}}\n"
           "}  // namespace\n}  // namespace a\n")
    got = {(n, b - a + 1) for n, a, b in functions(src)}
    want = {("Long", 64), ("Short", 1), ("Member", 3), ("Lambda", 66), ("S::Qualified", 64)}
    if got != want:
        print(f"check-house self-test FAILED: found {sorted(got)}, want {sorted(want)}")
        return 1
    cases = [({"a", "b"}, {"a", "b"}, ([], [])), ({"a", "c"}, {"a"}, (["c"], [])),
             ({"a"}, {"a", "b"}, ([], ["b"]))]
    for found, allowed, expect in cases:
        if compare(found, allowed) != expect:
            print(f"check-house self-test FAILED: {found} against {allowed}")
            return 1
    print("check-house self-test: ok")
    return 0


def compare(found, allowed):
    """(over the limit but not allowed, allowed but no longer over the limit), sorted."""
    return sorted(found - allowed), sorted(allowed - found)


def main():
    if "--self-test" in sys.argv:
        return self_test()
    if "--list" in sys.argv:
        lengths_report()
        return 0
    found, allowed = over_limits(), read_allow()
    new, stale = compare(found, allowed)
    for e in new:
        print(f"check-house: over the limit ({FUNCTION_LINES} lines a function, {FILE_LINES} a "
              f"file) and not in scripts/house-allow.txt: {e}")
    for e in stale:
        print(f"check-house: no longer over its limit, remove it from scripts/house-allow.txt: {e}")
    if new or stale:
        return 1
    print(f"check-house: ok ({len(allowed)} allowed entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
