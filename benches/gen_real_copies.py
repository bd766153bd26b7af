#!/usr/bin/env python3
"""A corpus of real Claude Code logs' shape at any size: the shared corpus's
transcripts copied COPIES times under DEST/projects/cNNN/, each copy with
identities of its own, so that no tool counts one copy's requests as
another's.

    python3 benches/gen_real_copies.py SRC DEST COPIES

SRC is a folder of Claude Code JSONL transcripts (`../shared/corpus/
claude-code-jsonl`), read, never changed; DEST is written under target/ by
the benchmarks and never committed. In each copy every UUID (session, message
and parent ids, in file and folder names too) is replaced by a UUID derived
from it and the copy's number, and every `msg_`, `req_` and `toolu_` id gets
the copy's number appended: ccusage drops a request whose message and request
ids it has seen, and tokencast threads a session's requests by them. Nothing
else changes: sizes, timestamps, models, usage and line shapes are the
logs' own (one line per content block in Claude Code 2.x, whole messages in
1.0), which the generated corpus (examples/gen_claude_corpus.rs) only
imitates.
"""
import os
import re
import sys
import uuid

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
IDS = re.compile(rb"\b(msg|req|toolu)_([A-Za-z0-9]+)")
NS = uuid.UUID("6f1c2d36-4a4b-4c8e-9a55-2f0e4b1f7c11")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen_real_copies.py SRC DEST COPIES")
    src, dest, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    files = []
    for root, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith(".jsonl"):
                files.append(os.path.relpath(os.path.join(root, n), src))
    if not files:
        sys.exit(f"{src}: no .jsonl file")
    files.sort()
    texts = {f: open(os.path.join(src, f), "rb").read() for f in files}
    for c in range(copies):
        tag = f"c{c:03d}"
        mapped = {}

        def new_uuid(m):
            u = m.group(0)
            if u not in mapped:
                mapped[u] = str(uuid.uuid5(NS, f"{tag}:{u.decode()}")).encode()
            return mapped[u]

        def new_id(m):
            return m.group(1) + b"_" + m.group(2) + tag.encode()

        for f in files:
            rel = UUID.sub(new_uuid, f.encode()).decode()
            out = os.path.join(dest, "projects", tag, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as w:
                w.write(IDS.sub(new_id, UUID.sub(new_uuid, texts[f])))


if __name__ == "__main__":
    main()
