"""The floor of writing an import's output tree on this disk.

    python3 benches/write_floor.py SRC DEST

Reads every folder and file under SRC (an import's --out folder) into
memory, then makes the same tree under DEST (which must not exist) with two
processes, one per core, each taking every other top-level folder: each
folder made, each file created, written and closed, nothing fsynced. Prints
the seconds the two took. What `import` spends making the same files cannot
be below this; the README's import section compares the two.
"""
import multiprocessing as mp
import os
import sys
import time

src, dst = sys.argv[1], sys.argv[2]
items = []
for root, dirs, files in os.walk(src):
    rel = os.path.relpath(root, src)
    items.append(("d", rel, None))
    for f in files:
        with open(os.path.join(root, f), "rb") as fh:
            items.append(("f", os.path.join(rel, f), fh.read()))
tops = sorted({i[1].split(os.sep)[0] for i in items if i[1] != "."})
first_half = set(tops[::2])


def work(k):
    for kind, rel, data in items:
        if rel == ".":
            continue
        if (rel.split(os.sep)[0] in first_half) != (k == 0):
            continue
        path = os.path.join(dst, rel)
        if kind == "d":
            os.mkdir(path)
        else:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data)
            os.close(fd)


os.mkdir(dst)
start = time.perf_counter()
procs = [mp.Process(target=work, args=(k,)) for k in (0, 1)]
for p in procs:
    p.start()
for p in procs:
    p.join()
files = sum(1 for i in items if i[0] == "f")
folders = sum(1 for i in items if i[0] == "d") - 1
print(f"{time.perf_counter() - start:.3f} s for {files} files in {folders} folders")
