"""Mutated custom-op archives (lib<name>.so made by custom_op.load) for
load_library, and the verdict of a batch of them run in one interpreter."""

import json
import os

import mutate
from common import rng_for


def _members(data):
    """(name, bytes) of a GNU ar archive as _archive.write makes it."""
    out, table, pos = [], b"", 8
    while pos + 60 <= len(data):
        raw = data[pos : pos + 16].rstrip(b" ")
        size = int(data[pos + 48 : pos + 58])
        body = data[pos + 60 : pos + 60 + size]
        pos += 60 + size + (size % 2)
        if raw == b"//":
            table = body
            continue
        if raw.startswith(b"/") and raw[1:].isdigit():
            start = int(raw[1:])
            name = table[start : table.index(b"/\n", start)]
        else:
            name = raw[:-1]
        out.append((name.decode(), body))
    return out


def mutated_archives(seed, count, corpus):
    with open(corpus.archives["single"], "rb") as f:
        original = f.read()
    members = _members(original)
    metadata = json.loads(dict(members)["metadata.json"])
    cache = corpus.env.get("Q7_CACHE_DIR", "")
    escape = os.path.relpath(os.path.join(corpus.sentinel, "regular.txt"), os.path.join(cache, "loaded", "0" * 16))
    result = []
    for i in range(count):
        rng = rng_for(seed, "py-archive", i)
        kind = rng.randrange(10)
        if kind < 4:
            data = mutate.mutate_ar(rng, original)
        elif kind < 8:
            m = mutate.mutate_metadata(rng, metadata, escape)
            data = mutate.ar_archive([(n, d) for n, d in members if n != "metadata.json"] + [("metadata.json", m)])
        elif kind == 8:
            odd = rng.choice(["../x.so", "/abs.so", ".", "..", "-rf", "a/b", escape, "x" * 300, "ü.so", " "])
            position = rng.randrange(len(members) + 1)
            data = mutate.ar_archive(members[:position] + [(odd, b"\x7fELF")] + members[position:])
        else:
            data = mutate.mutate_bytes(rng, original)
        result.append((f"arch{i:04d}.so", data))
    return result


def batch_verdicts(stdout, names):
    """{archive name: [problem, ...]} from a batch's output, and the names that never ran."""
    verdicts, started, ended = {}, [], set()
    for line in stdout.splitlines():
        if line.startswith("ARCHIVE-START "):
            started.append(line.split()[1])
        elif line.startswith("ARCHIVE-END "):
            _, name, outcome = line.split(" ", 2)
            ended.add(name)
            problems = []
            if outcome.startswith("UNEXPECTED"):
                problems.append(outcome)
            if "[does not name the archive]" in outcome:
                problems.append(f"error does not name the archive: {outcome}")
            verdicts[name] = (problems, outcome)
    died_on = [n for n in started if n not in ended]
    for n in died_on:
        verdicts[n] = (["the interpreter died while loading this archive"], "died")
    never = [n for n in names if n not in verdicts]
    return verdicts, never
