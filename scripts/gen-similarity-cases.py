#!/usr/bin/env python3
"""Generates the golden corpus for lib/text/similarity.ts.

Prints JSON {"python": <version>, "cases": [{"name", "a", "b", "ratio"}]} where ratio is
difflib.SequenceMatcher(None, a, b).ratio(). Deterministic (fixed seed), so the committed
tests/text/similarity-cases.json can be regenerated and diffed:

    python3 scripts/gen-similarity-cases.py > tests/text/similarity-cases.json
"""
import difflib
import json
import platform
import random

rng = random.Random(20240611)

ASCII = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789.,!?"
SMALL = "ab"
CHINESE = "我你他的是了在不有这个们来到说要就会对也和好吗呢吧啊哦嗯想看去做"
EMOJI = ["😀", "😂", "🤔", "👍", "🎉", "❤", "🙏", "🔥", "𠀀", "𝔘"]
MIXED = list("abc 我的是") + ["😀", "👍", "𠀀"]


def rand_text(alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def mutate(s, edits, alphabet):
    """Random single-code-point substitutions, insertions and deletions."""
    chars = list(s)
    for _ in range(edits):
        op = rng.randrange(3)
        pos = rng.randrange(len(chars) + 1)
        if op == 0 and pos < len(chars):
            chars[pos] = rng.choice(alphabet)
        elif op == 1:
            chars.insert(pos, rng.choice(alphabet))
        elif chars:
            del chars[min(pos, len(chars) - 1)]
    return "".join(chars)


cases = []


def add(name, a, b):
    cases.append({"name": name, "a": a, "b": b, "ratio": difflib.SequenceMatcher(None, a, b).ratio()})


# Hand-picked edge cases.
add("both empty", "", "")
add("a empty", "", "abc")
add("b empty", "abc", "")
add("identical", "hello world", "hello world")
add("disjoint", "abc", "xyz")
add("docstring tie-break", " abcd", "abcd abcd")
add("classic", "abcd", "bcde")
add("astral chars", "😀😀a", "😀a😀")
add("combining marks", "e\u0301te\u0301", "ete\u0301")
add("repeated single", "a" * 250, "a" * 250)
add("repeated vs shifted", "a" * 199, "a" * 201)
add("popular only", "b" + "a" * 300, "a" * 300 + "b")
add("popular extension", "xyz" + "ab" * 120 + "q", "ab" * 120 + "xyz" + "q")

# Random short strings over each alphabet, including tiny alphabets that force many ties.
for label, alphabet in [("ascii", ASCII), ("binary", SMALL), ("chinese", CHINESE), ("emoji", EMOJI), ("mixed", MIXED)]:
    for k in range(24):
        a = rand_text(alphabet, rng.randrange(0, 40))
        b = rand_text(alphabet, rng.randrange(0, 40))
        add(f"{label} random {k}", a, b)
    for k in range(16):
        a = rand_text(alphabet, rng.randrange(1, 80))
        add(f"{label} near-dup {k}", a, mutate(a, rng.randrange(0, 6), alphabet))

# Lengths straddling the autojunk threshold of 200 on b (and on a only, which must not matter).
for k, (la, lb) in enumerate([(150, 199), (150, 200), (200, 150), (199, 201), (210, 210), (260, 300)]):
    for label, alphabet in [("ascii", ASCII), ("binary", SMALL), ("chinese", CHINESE)]:
        a = rand_text(alphabet, la)
        add(f"threshold {label} {la}/{lb}", a, mutate(a, 12, alphabet)[:lb] + rand_text(alphabet, max(0, lb - la - 12)))

# Repetitive long texts (> 200) where popular elements get dropped from the index.
PHRASES = ["我觉得这个问题需要再想想。", "Let me check the tool result again. ", "好的，", "嗯嗯😀", "ok "]
for k in range(18):
    a = "".join(rng.choice(PHRASES) for _ in range(rng.randrange(20, 60)))
    b = mutate(a, rng.randrange(0, 30), CHINESE + ASCII)
    if k % 3 == 0:
        b = "".join(rng.choice(PHRASES) for _ in range(rng.randrange(20, 60)))
    add(f"repetitive {k}", a, b)

# Planner-like reasoning: near-duplicates of a few hundred characters, the dedup case itself.
for k in range(14):
    base = rand_text(CHINESE + "，。", rng.randrange(120, 400))
    add(f"reasoning near-dup {k}", base, mutate(base, rng.randrange(0, 60), CHINESE))

# Large inputs (~2000 code points), the size the implementation must handle quickly.
for label, alphabet in [("ascii", ASCII), ("chinese", CHINESE), ("mixed", MIXED)]:
    a = rand_text(alphabet, 2000)
    add(f"large {label}", a, mutate(a, 150, alphabet))

print(json.dumps({"python": platform.python_version(), "cases": cases}, ensure_ascii=False, indent=0))
